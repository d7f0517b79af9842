import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { errorResponse } from "@/lib/api/respond";
import { isAtriumError } from "@/lib/errors";
import { startHarness, type Harness } from "../../support/runtime-harness";

const AUTO = { approvals: { shell: "auto", write_file: "auto", edit_file: "auto" } };
const BIG_BYTES = 10 * 1024 * 1024 + 1;

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

function userGit(...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
    cwd,
    encoding: "utf8",
    env: { PATH: process.env.PATH, NODE_ENV: process.env.NODE_ENV, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
  });
}

function fileState(name: string): { bytes: string; mode: number } | null {
  const file = path.join(cwd, name);
  if (!fs.existsSync(file)) return null;
  return { bytes: fs.readFileSync(file).toString("base64"), mode: fs.statSync(file).mode & 0o777 };
}

async function runTurn(conversationId: string | null, text: string): Promise<{ conversationId: string; turnId: string; messageId: string }> {
  const runtime = harness!.runtime;
  if (conversationId === null) {
    const created = await runtime.createConversation({ text, cwd });
    const turn = await harness!.turnEnded(created.conversation.id, created.turn.id);
    expect(turn.status).toBe("completed");
    return { conversationId: created.conversation.id, turnId: created.turn.id, messageId: created.message.id };
  }
  const sent = await runtime.sendMessage(conversationId, { text, mode: "auto" });
  const turn = await harness!.turnEnded(conversationId, sent.turn!.id);
  expect(turn.status).toBe("completed");
  return { conversationId, turnId: sent.turn!.id, messageId: sent.message.id };
}

describe("checkpoints of the working directory", () => {
  it("list what a turn changed through write_file, edit_file and shell, and a rewind with restoreFiles puts all of it back exactly, leaving ignored and oversized files and the cwd's own .git alone", async () => {
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-cwd-"));
    fs.writeFileSync(path.join(cwd, "edited.txt"), "one\ntwo\nthree\n", { mode: 0o755 });
    fs.chmodSync(path.join(cwd, "edited.txt"), 0o755);
    fs.writeFileSync(path.join(cwd, "deleted.txt"), "bye\nfor now\n");
    fs.writeFileSync(path.join(cwd, ".gitignore"), "ignored.log\n");
    fs.writeFileSync(path.join(cwd, "ignored.log"), "log\n");
    fs.writeFileSync(path.join(cwd, "big.bin"), Buffer.alloc(BIG_BYTES, 7));
    userGit("init", "-q");
    // The user's own ignore rule for big.bin: Atrium's snapshot store does not read it, so big.bin is left out for its size alone.
    fs.appendFileSync(path.join(cwd, ".git", "info", "exclude"), "big.bin\n");
    userGit("add", "edited.txt", "deleted.txt", ".gitignore");
    userGit("commit", "-q", "-m", "start");
    const userRepo = () => ({
      status: userGit("status", "--porcelain", "--ignored"),
      refs: userGit("for-each-ref") + userGit("rev-parse", "HEAD"),
      objects: userGit("count-objects", "-v"),
    });
    const before = userRepo();
    const original = { edited: fileState("edited.txt"), deleted: fileState("deleted.txt") };

    harness = await startHarness(AUTO);
    const first = await runTurn(null, "hello");
    const text = [
      tool("write_file", { path: "new.txt", content: "fresh\nfile\n" }),
      tool("edit_file", { path: "edited.txt", old: "two", new: "TWO" }),
      tool("shell", { command: "rm deleted.txt && echo more >> ignored.log && printf more >> big.bin" }),
    ].join("");
    const second = await runTurn(first.conversationId, text);

    const changes = await harness.runtime.turnChanges(second.turnId);
    expect([...changes.files].sort((a, b) => a.path.localeCompare(b.path))).toEqual([
      { path: "deleted.txt", status: "deleted", additions: 0, deletions: 2 },
      { path: "edited.txt", status: "modified", additions: 1, deletions: 1 },
      { path: "new.txt", status: "added", additions: 2, deletions: 0 },
    ]);
    expect(changes.diff).toContain("-two\n+TWO");
    expect(await harness.runtime.turnChanges(first.turnId)).toEqual({ files: [], diff: "" });
    const editCall = harness.items(first.conversationId).find((item) => item.toolName === "edit_file")!;
    const editChanges = await harness.runtime.turnChanges(second.turnId, editCall.id);
    expect(editChanges.files).toEqual([{ path: "edited.txt", status: "modified", additions: 1, deletions: 1 }]);

    // The records naming the checkpoints are durable: after a restart the same answers come back.
    await harness.restart();
    expect((await harness.runtime.turnChanges(second.turnId)).files).toHaveLength(3);
    expect((await harness.runtime.filesChangedSince(first.conversationId, second.messageId)).sort()).toEqual(["deleted.txt", "edited.txt", "new.txt"]);

    const rewound = await harness.runtime.rewind(first.conversationId, second.messageId, { restoreFiles: true });
    expect(rewound.restored.sort()).toEqual(["deleted.txt", "edited.txt", "new.txt"]);
    expect(rewound.draft).toBe(text);
    expect(fileState("new.txt")).toBeNull();
    expect(fileState("edited.txt")).toEqual(original.edited);
    expect(fileState("deleted.txt")).toEqual(original.deleted);
    expect(fs.readFileSync(path.join(cwd, "ignored.log"), "utf8")).toBe("log\nmore\n");
    expect(fs.statSync(path.join(cwd, "big.bin")).size).toBe(BIG_BYTES + 4);
    expect(userRepo()).toEqual(before);

    // The new conversation carries the checkpoints taken before its cut: restarting it from its
    // copied first message puts back what its own turns changed since.
    const forkId = rewound.conversation.id;
    await runTurn(forkId, tool("write_file", { path: "in-fork.txt", content: "forked\n" }));
    const copiedFirst = harness.items(forkId).find((item) => item.kind === "user_message")!;
    expect(await harness.runtime.filesChangedSince(forkId, copiedFirst.id)).toEqual(["in-fork.txt"]);
    const again = await harness.runtime.rewind(forkId, copiedFirst.id, { restoreFiles: true });
    expect(again.restored).toEqual(["in-fork.txt"]);
    expect(fileState("in-fork.txt")).toBeNull();
    expect(userRepo()).toEqual(before);
  });

  it("refuses with files_changed_outside, restoring nothing, when a file changed after the agent's last checkpoint; force restores", async () => {
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-cwd-"));
    fs.writeFileSync(path.join(cwd, "a.txt"), "alpha\n");
    harness = await startHarness(AUTO);
    const turn = await runTurn(null, tool("edit_file", { path: "a.txt", old: "alpha", new: "ALPHA" }) + tool("write_file", { path: "b.txt", content: "agent\n" }));
    fs.writeFileSync(path.join(cwd, "b.txt"), "the owner's own edit\n");

    const refused = await harness.runtime.rewind(turn.conversationId, turn.messageId, { restoreFiles: true }).catch((error: unknown) => error);
    expect(isAtriumError(refused) && refused.code).toBe("files_changed_outside");
    expect(isAtriumError(refused) && refused.details).toEqual({ files: ["b.txt"] });
    const answer = errorResponse(refused);
    expect(answer.status).toBe(409);
    expect(await answer.json()).toEqual({ error: { code: "files_changed_outside", message: expect.stringContaining("b.txt"), files: ["b.txt"] } });
    expect(fs.readFileSync(path.join(cwd, "a.txt"), "utf8")).toBe("ALPHA\n");
    expect(fs.readFileSync(path.join(cwd, "b.txt"), "utf8")).toBe("the owner's own edit\n");
    expect((await harness.runtime.listConversations({ archived: "all", offset: 0, limit: 10 })).conversations).toHaveLength(1);

    const forced = await harness.runtime.rewind(turn.conversationId, turn.messageId, { restoreFiles: true, force: true });
    expect(forced.restored.sort()).toEqual(["a.txt", "b.txt"]);
    expect(fs.readFileSync(path.join(cwd, "a.txt"), "utf8")).toBe("alpha\n");
    expect(fs.existsSync(path.join(cwd, "b.txt"))).toBe(false);
  });

  it("are a cache: with the snapshots gone, a turn shows no changes and a rewind restores nothing, and the next turn starts a new store", async () => {
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-cwd-"));
    harness = await startHarness(AUTO);
    const turn = await runTurn(null, tool("write_file", { path: "kept.txt", content: "kept\n" }));
    fs.rmSync(path.join(harness.home, "snapshots"), { recursive: true, force: true });
    expect(await harness.runtime.turnChanges(turn.turnId)).toEqual({ files: [], diff: "" });
    const rewound = await harness.runtime.rewind(turn.conversationId, turn.messageId, { restoreFiles: true });
    expect(rewound.restored).toEqual([]);
    expect(fs.readFileSync(path.join(cwd, "kept.txt"), "utf8")).toBe("kept\n");
    const next = await runTurn(turn.conversationId, tool("write_file", { path: "again.txt", content: "again\n" }));
    expect((await harness.runtime.turnChanges(next.turnId)).files).toEqual([{ path: "again.txt", status: "added", additions: 1, deletions: 0 }]);
  });

  it("turns checkpoints off with a notice, never a failed turn, when the cwd has more files than snapshots.maxFiles", async () => {
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-cwd-"));
    for (const name of ["1", "2", "3", "4"]) fs.writeFileSync(path.join(cwd, name), name);
    harness = await startHarness({ ...AUTO, snapshots: { maxFiles: 3 } });
    const turn = await runTurn(null, tool("write_file", { path: "5", content: "5" }));
    const notices = harness.items(turn.conversationId).filter((item) => item.kind === "notice");
    expect(notices).toHaveLength(1);
    expect(notices[0].text).toContain("Checkpoints are off");
    expect(notices[0].text).toContain("more than 3 files");
    expect(await harness.runtime.turnChanges(turn.turnId)).toEqual({ files: [], diff: "" });
  });

  it("never hold up an interrupt or a delete: the turn ends while its checkpoint is still being taken, and a late checkpoint does not bring the deleted conversation back", async () => {
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-cwd-"));
    harness = await startHarness(AUTO);
    const checkpoints = harness.runtime.context.checkpoints!;
    const real = checkpoints.snapshot.bind(checkpoints);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // Wrapped in an object: resolving with the promise itself would wait for it.
    let started!: (snapshot: { taken: Promise<unknown> }) => void;
    const snapshotStarted = new Promise<{ taken: Promise<unknown> }>((resolve) => (started = resolve));
    checkpoints.snapshot = (directory) => {
      const taken = gate.then(() => real(directory));
      started({ taken });
      return taken;
    };

    const created = await harness.runtime.createConversation({ text: "slow checkpoint", cwd });
    const { taken } = await snapshotStarted;
    const actor = harness.runtime.actor(created.conversation.id);
    await harness.runtime.interrupt(created.conversation.id);
    const turn = await harness.turnEnded(created.conversation.id, created.turn.id);
    expect(turn.status).toBe("interrupted");
    await harness.runtime.deleteConversation(created.conversation.id);

    release();
    await taken;
    // The hook's continuation queues its record on the (deleted) conversation's lock: let it run, then pass through the lock after it.
    await new Promise((resolve) => setImmediate(resolve));
    // Every command of a deleted conversation is refused, the hook's record included.
    await expect(actor.locked(() => undefined)).rejects.toThrow(/was deleted/);
    expect(fs.existsSync(harness.runtime.store.paths.conversation(created.conversation.id))).toBe(false);
  });

  it("a rewind right after an interrupt waits for the interrupted turn's last snapshot, so the file it changed is put back", async () => {
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-cwd-"));
    fs.writeFileSync(path.join(cwd, "a.txt"), "before\n");
    harness = await startHarness(AUTO);
    const checkpoints = harness.runtime.context.checkpoints!;
    const real = checkpoints.snapshot.bind(checkpoints);
    const first = await runTurn(null, "hello");
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const toolSnapshotStarted = new Promise<void>((resolve) => (started = resolve));
    let calls = 0;
    // The second turn's start snapshot is real; the one after its tool waits at the gate.
    checkpoints.snapshot = (directory) => {
      calls += 1;
      if (calls === 1) return real(directory);
      started();
      return gate.then(() => real(directory));
    };
    const sent = await harness.runtime.sendMessage(first.conversationId, { text: tool("write_file", { path: "a.txt", content: "after\n" }), mode: "auto" });
    await toolSnapshotStarted;
    await harness.runtime.interrupt(first.conversationId);
    expect((await harness.turnEnded(first.conversationId, sent.turn!.id)).status).toBe("interrupted");
    expect(fs.readFileSync(path.join(cwd, "a.txt"), "utf8")).toBe("after\n");

    let answered = false;
    const preview = harness.runtime.filesChangedSince(first.conversationId, sent.message.id).then((files) => ((answered = true), files));
    // Not before the snapshot is on record: poll a few turns of the event loop, then let it go.
    for (let round = 0; round < 20; round += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(answered).toBe(false);
    release();
    expect(await preview).toEqual(["a.txt"]);
    const rewound = await harness.runtime.rewind(first.conversationId, sent.message.id, { restoreFiles: true });
    expect(rewound.restored).toEqual(["a.txt"]);
    expect(fs.readFileSync(path.join(cwd, "a.txt"), "utf8")).toBe("before\n");
  });
});
