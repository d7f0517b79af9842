import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../../support/runtime-harness";

let harness: Harness;
afterEach(async () => harness?.close());

/** Every path under `root` with its permission bits, skipping the folders named. */
function tree(root: string, skip: string[]): Array<{ path: string; mode: number; directory: boolean }> {
  const found: Array<{ path: string; mode: number; directory: boolean }> = [];
  const walk = (directory: string) => {
    for (const entry of fs.readdirSync(directory, { withFileTypes: true })) {
      const full = path.join(directory, entry.name);
      if (skip.includes(full)) continue;
      const stats = fs.lstatSync(full);
      found.push({ path: path.relative(root, full), mode: stats.mode & 0o777, directory: entry.isDirectory() });
      if (entry.isDirectory()) walk(full);
    }
  };
  walk(root);
  return found;
}

describe("the data directory", () => {
  it("is 0700 with its files 0600 after a turn with an attachment, an artifact, a waiting message and the index", async () => {
    harness = await startHarness({ approvals: { shell: "auto" }, artifactBytes: 1024 });
    const upload = await harness.runtime.upload("notes.txt", "text/plain", Buffer.from("remember the milk\n"));
    const created = await harness.runtime.createConversation({ text: '[[tool:shell {"command":"seq 1 2000"}]]', attachments: [upload.id] });
    await harness.turnEnded(created.conversation.id, created.turn.id);
    const call = harness.items(created.conversation.id).find((item) => item.kind === "tool_call");
    expect(call?.artifactId).toBeDefined();
    await harness.runtime.upload("later.txt", "text/plain", Buffer.from("not yet sent\n"));

    expect(fs.statSync(harness.home).mode & 0o777).toBe(0o700);
    // The tools' working directory is a project (the owner's files, the owner's modes), and the snapshot git dirs are a cache git writes itself.
    const entries = tree(harness.home, [harness.cwd, path.join(harness.home, "snapshots")]);
    expect(entries.map((entry) => entry.path)).toEqual(expect.arrayContaining(["metadata.db", "conversations", `conversations/${created.conversation.id}/metadata.jsonl`]));
    expect(entries.some((entry) => entry.path.includes("artifacts/"))).toBe(true);
    expect(entries.some((entry) => entry.path.includes("attachments/"))).toBe(true);
    expect(entries.some((entry) => entry.path.startsWith("uploads/"))).toBe(true);
    const open = entries.filter((entry) => (entry.mode & 0o077) !== 0).map((entry) => `${entry.path} ${entry.mode.toString(8)}`);
    expect(open).toEqual([]);
  });
});
