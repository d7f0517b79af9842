import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isAtriumError } from "@/lib/errors";
import { startHarness, type Harness } from "../../support/runtime-harness";

const AUTO = { approvals: { shell: "auto", write_file: "auto", edit_file: "auto" } };

let harness: Harness | undefined;
let cwd: string;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  fs.rmSync(cwd, { recursive: true, force: true });
});

function tool(name: string, input: object): string {
  return `[[tool:${name} ${JSON.stringify(input)}]]`;
}

async function turn(conversationId: string | null, text: string): Promise<{ conversationId: string; turnId: string }> {
  const runtime = harness!.runtime;
  if (conversationId === null) {
    const created = await runtime.createConversation({ text, cwd });
    expect((await harness!.turnEnded(created.conversation.id, created.turn.id)).status).toBe("completed");
    return { conversationId: created.conversation.id, turnId: created.turn.id };
  }
  const sent = await runtime.sendMessage(conversationId, { text, mode: "auto" });
  expect((await harness!.turnEnded(conversationId, sent.turn!.id)).status).toBe("completed");
  return { conversationId, turnId: sent.turn!.id };
}

const read = (name: string) => (fs.existsSync(path.join(cwd, name)) ? fs.readFileSync(path.join(cwd, name), "utf8") : null);
const failure = (error: unknown) => (isAtriumError(error) ? { code: error.code, details: error.details } : error);

describe("Revert to before this turn, one file at a time (issue 26)", () => {
  it("puts back only that file, as the turn found it, and leaves the turn's other files alone", async () => {
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-cwd-"));
    const lines = Array.from({ length: 40 }, (_, index) => `line ${index + 1}`);
    fs.writeFileSync(path.join(cwd, "long.txt"), `${lines.join("\n")}\n`);
    harness = await startHarness(AUTO);
    const first = await turn(null, tool("write_file", { path: "notes.txt", content: "v1\n" }));
    const second = await turn(first.conversationId, tool("edit_file", { path: "long.txt", old: "line 20\n", new: "line twenty\n" }) + tool("write_file", { path: "notes.txt", content: "v2\n" }) + tool("write_file", { path: "new.txt", content: "new\n" }));

    // Expandable context: the default shows 3 lines around the change, more on request.
    const narrow = await harness.runtime.turnChanges(second.turnId);
    expect(narrow.diff).not.toContain(" line 10\n");
    const wide = await harness.runtime.turnChanges(second.turnId, undefined, 15);
    expect(wide.diff).toContain(" line 10\n");
    expect(wide.files).toEqual(narrow.files);

    expect(await harness.runtime.revertFile(second.turnId, "notes.txt", false)).toEqual({ restored: ["notes.txt"] });
    expect(read("notes.txt")).toBe("v1\n");
    expect(read("long.txt")).toContain("line twenty\n");
    expect(read("new.txt")).toBe("new\n");
    // A file the turn added is removed; reverting again finds nothing left to do.
    expect(await harness.runtime.revertFile(second.turnId, "new.txt", false)).toEqual({ restored: ["new.txt"] });
    expect(read("new.txt")).toBeNull();
    expect(await harness.runtime.revertFile(second.turnId, "new.txt", false)).toEqual({ restored: [] });
  });

  it("asks before overwriting a file changed outside Atrium, and refuses paths the turn did not change", async () => {
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-cwd-"));
    fs.writeFileSync(path.join(cwd, "a.txt"), "alpha\n");
    harness = await startHarness(AUTO);
    const only = await turn(null, tool("edit_file", { path: "a.txt", old: "alpha", new: "ALPHA" }));
    fs.writeFileSync(path.join(cwd, "a.txt"), "the owner's own edit\n");
    fs.writeFileSync(path.join(cwd, "other.txt"), "untouched\n");

    const refused = await harness.runtime.revertFile(only.turnId, "a.txt", false).catch(failure);
    expect(refused).toEqual({ code: "files_changed_outside", details: { files: ["a.txt"] } });
    expect(read("a.txt")).toBe("the owner's own edit\n");
    expect(await harness.runtime.revertFile(only.turnId, "a.txt", true)).toEqual({ restored: ["a.txt"] });
    expect(read("a.txt")).toBe("alpha\n");

    const notChanged = await harness.runtime.revertFile(only.turnId, "other.txt", false).catch(failure);
    expect(notChanged).toMatchObject({ code: "bad_request" });
    expect(read("other.txt")).toBe("untouched\n");
  });
});
