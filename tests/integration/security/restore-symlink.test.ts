import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { errorResponse } from "@/lib/api/respond";
import { isAtriumError } from "@/lib/errors";
import { startHarness, type Harness } from "../../support/runtime-harness";

// Issue 21, finding 3a: "Restart from here" with restoreFiles wrote through a link planted at its temporary name.
const AUTO = { approvals: { shell: "auto", write_file: "auto", edit_file: "auto" } };

let harness: Harness | undefined;
const folders: string[] = [];
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  for (const folder of folders.splice(0)) fs.rmSync(folder, { recursive: true, force: true });
});

function folder(prefix: string): string {
  const made = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  folders.push(made);
  return made;
}

function tool(name: string, input: object): string {
  return `[[tool:${name} ${JSON.stringify(input)}]]`;
}

/** A file outside the working directory that nothing Atrium does may change. */
function outsideFile(): { file: string; unchanged(): void } {
  const file = path.join(folder("atrium-outside-"), "secret.txt");
  fs.writeFileSync(file, "outside, untouched\n", { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  const before = fs.statSync(file);
  return {
    file,
    unchanged() {
      expect(fs.readFileSync(file, "utf8")).toBe("outside, untouched\n");
      const after = fs.statSync(file);
      expect(after.mode & 0o7777).toBe(0o600);
      expect(after.mtimeMs).toBe(before.mtimeMs);
    },
  };
}

async function editedConversation(cwd: string, file: string): Promise<{ conversationId: string; messageId: string }> {
  const created = await harness!.runtime.createConversation({ text: tool("edit_file", { path: file, old: "alpha", new: "ALPHA" }), cwd });
  const turn = await harness!.turnEnded(created.conversation.id, created.turn.id);
  expect(turn.status).toBe("completed");
  expect(fs.readFileSync(path.join(cwd, file), "utf8")).toBe("ALPHA\n");
  return { conversationId: created.conversation.id, messageId: created.message.id };
}

describe("restoring files on Restart from here", () => {
  it("never writes through a link planted at a predictable temporary name: the outside file keeps its bytes and mode", async () => {
    const cwd = folder("atrium-cwd-");
    fs.writeFileSync(path.join(cwd, "a.txt"), "alpha\n", { mode: 0o644 });
    const outside = outsideFile();
    harness = await startHarness(AUTO);
    const { conversationId, messageId } = await editedConversation(cwd, "a.txt");

    // The old name was `<file>.atrium-restore-<pid>`; the Runtime runs in this process. Plant
    // the same trap at the dot-file form too, and under every pid near ours.
    const planted: string[] = [];
    for (let pid = Math.max(1, process.pid - 50); pid <= process.pid + 50; pid += 1) {
      for (const name of [`a.txt.atrium-restore-${pid}`, `.a.txt.atrium-restore-${pid}`]) {
        const link = path.join(cwd, name);
        fs.symlinkSync(outside.file, link);
        planted.push(link);
      }
    }

    const rewound = await harness.runtime.rewind(conversationId, messageId, { restoreFiles: true, force: true });

    expect(rewound.restored).toEqual(["a.txt"]);
    const restored = path.join(cwd, "a.txt");
    expect(fs.lstatSync(restored).isSymbolicLink()).toBe(false);
    expect(fs.readFileSync(restored, "utf8")).toBe("alpha\n");
    expect(fs.statSync(restored).mode & 0o777).toBe(0o644);
    outside.unchanged();
    for (const link of planted) expect(fs.readlinkSync(link)).toBe(outside.file);
    // No temporary file is left behind.
    const names = fs.readdirSync(cwd).filter((name) => name.includes("atrium-restore"));
    expect(names.sort()).toEqual(planted.map((link) => path.basename(link)).sort());
  });

  it("refuses, with a clear error and nothing written, to restore into a folder that is now a link out of the working directory", async () => {
    const cwd = folder("atrium-cwd-");
    fs.mkdirSync(path.join(cwd, "sub"));
    fs.writeFileSync(path.join(cwd, "sub", "b.txt"), "alpha\n");
    const outside = outsideFile();
    fs.copyFileSync(outside.file, path.join(path.dirname(outside.file), "b.txt"));
    fs.chmodSync(path.join(path.dirname(outside.file), "b.txt"), 0o600);
    const outsideB = path.join(path.dirname(outside.file), "b.txt");
    const outsideBefore = fs.statSync(outsideB);
    harness = await startHarness(AUTO);
    const { conversationId, messageId } = await editedConversation(cwd, "sub/b.txt");

    // The owner (or anyone with write access) swaps the folder for a link to another place.
    fs.rmSync(path.join(cwd, "sub"), { recursive: true });
    fs.symlinkSync(path.dirname(outside.file), path.join(cwd, "sub"));

    const refused = await harness.runtime.rewind(conversationId, messageId, { restoreFiles: true, force: true }).catch((error: unknown) => error);

    expect(isAtriumError(refused) && refused.code).toBe("bad_request");
    expect(isAtriumError(refused) && refused.message).toMatch(/sub\/b\.txt.*outside the working directory/);
    const answer = errorResponse(refused);
    expect(answer.status).toBe(400);
    outside.unchanged();
    expect(fs.readFileSync(outsideB, "utf8")).toBe("outside, untouched\n");
    expect(fs.statSync(outsideB).mode & 0o7777).toBe(0o600);
    expect(fs.statSync(outsideB).mtimeMs).toBe(outsideBefore.mtimeMs);
    expect(fs.readdirSync(path.dirname(outside.file)).sort()).toEqual(["b.txt", "secret.txt"]);
    // A refused restore forks nothing.
    expect((await harness.runtime.listConversations({ archived: "all", offset: 0, limit: 10 })).conversations).toHaveLength(1);
  });
});
