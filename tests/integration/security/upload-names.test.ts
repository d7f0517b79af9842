import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { POST as uploadRoute } from "@/app/api/attachments/route";
import { POST as sendRoute } from "@/app/api/conversations/[id]/messages/route";
import { MAX_FILE_NAME_BYTES, safeFileName } from "@/lib/store/safe-path";
import { routesFor } from "../../support/in-process-routes";
import { startHarness, type Harness } from "../../support/runtime-harness";

// Issue 21, finding 7: odd upload names answered 500, or uploaded but could not be named by a message.
let harness: Harness | undefined;
let routes: ReturnType<typeof routesFor> | undefined;
afterEach(async () => {
  routes?.close();
  routes = undefined;
  await harness?.close();
  harness = undefined;
});

const bytes = (text: string) => Buffer.byteLength(text, "utf8");

async function upload(name: string, type = "text/plain"): Promise<Response> {
  const form = new FormData();
  form.append("file", new File([Buffer.from("some text\n")], name, { type }));
  return routes!.call(uploadRoute, { method: "POST", path: "/api/attachments", form });
}

const ODD_NAMES = [
  `${"é".repeat(120)}.txt`,
  " .x.txt",
  `${"a".repeat(119)} yy`,
  `${"𝒜".repeat(100)}.txt`,
  `${"a".repeat(300)}.txt`,
  "..",
  "../../etc/passwd",
  "C:\\Users\\me\\notes .txt",
  "   ",
  "name with trailing space .txt ",
];

describe("upload names", () => {
  it("uploads every odd name (never 5xx), stores it within 255 bytes with its id, and a message naming it is accepted", async () => {
    harness = await startHarness();
    routes = routesFor(harness.runtime);
    const created = await harness.runtime.createConversation({ text: "hello" });
    const conversationId = created.conversation.id;
    await harness.turnEnded(conversationId, created.turn.id);

    for (const name of ODD_NAMES) {
      const uploaded = await upload(name);
      expect(uploaded.status, name).toBe(201);
      const { attachment } = (await uploaded.json()) as { attachment: { id: string; name: string; mediaType: string } };
      expect(safeFileName(attachment.name), name).toBe(attachment.name);
      expect(bytes(`${attachment.id}-${attachment.name}`), name).toBeLessThanOrEqual(MAX_FILE_NAME_BYTES);
      if (name.endsWith(".txt")) expect(attachment.name.endsWith(".txt"), name).toBe(true);
      const stored = fs.readdirSync(path.join(harness.home, "uploads")).filter((file) => file.startsWith(`${attachment.id}-`));
      expect(stored, name).toEqual([`${attachment.id}-${attachment.name}`]);

      const sent = await routes.call(sendRoute, {
        path: `/api/conversations/${conversationId}/messages`,
        params: { id: conversationId },
        body: { text: `see ${attachment.id}`, mode: "auto", attachments: [attachment.id] },
      });
      expect(sent.status, `${name}: ${await sent.clone().text()}`).toBe(202);
      const { turn } = (await sent.json()) as { turn: { id: string } };
      await harness.turnEnded(conversationId, turn.id);
      const file = harness.runtime.reads.attachmentFile(conversationId, attachment.id);
      expect(fs.readFileSync(file.path, "utf8")).toBe("some text\n");
    }
  });

  it("names the three cases of the finding as expected", () => {
    expect(safeFileName(" .x.txt")).toBe("x.txt");
    expect(safeFileName(`${"a".repeat(119)} yy`)).toBe(`${"a".repeat(119)} yy`);
    const cut = safeFileName(`${"é".repeat(120)}.txt`, 228);
    expect(cut).toBe(`${"é".repeat(112)}.txt`);
    expect(bytes(cut)).toBe(228);
  });

  it("cleans idempotently, within the byte limit, never splitting a character, for many generated names", () => {
    const alphabet = ["a", "Z", "9", "é", "ß", "𝒜", "😀", "\u0301", "\u3000", "\u00a0", ".", " ", "-", "_", "/", "\\", "\0", "\n", ":", "*", "?", "txt", ".md", "..", "中"];
    let seed = 21;
    const random = () => {
      // A fixed linear congruential sequence: every run checks the same names, and a failure names its case.
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let index = 0; index < 3000; index += 1) {
      const length = Math.floor(random() * (index % 10 === 0 ? 400 : 40));
      let name = "";
      for (let part = 0; part < length; part += 1) name += alphabet[Math.floor(random() * alphabet.length)];
      for (const limit of [MAX_FILE_NAME_BYTES, MAX_FILE_NAME_BYTES - 27]) {
        const once = safeFileName(name, limit);
        const context = `case ${index} (limit ${limit}): ${JSON.stringify(name)}`;
        expect(safeFileName(once, limit), context).toBe(once);
        expect(safeFileName(once), context).toBe(once);
        expect(bytes(once), context).toBeLessThanOrEqual(limit);
        expect(once, context).not.toMatch(/^[. ]|[/\\\0]| $/);
        expect(Buffer.from(once, "utf8").toString("utf8"), context).toBe(once);
      }
    }
  });
});
