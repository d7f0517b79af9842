import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SnapshotStore } from "@/lib/checkpoints/snapshot-store";

let root: string;
let cwd: string;
let store: SnapshotStore;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-snapshots-"));
  cwd = path.join(root, "cwd");
  fs.mkdirSync(cwd);
  store = new SnapshotStore(path.join(root, "home", "snapshots"), 100);
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

async function tree(): Promise<string> {
  const outcome = await store.snapshot(cwd);
  if (!("tree" in outcome)) throw new Error(outcome.off);
  return outcome.tree;
}

describe("SnapshotStore", () => {
  it("refuses a restore that a symlink would carry outside the cwd, before writing anything", async () => {
    fs.mkdirSync(path.join(cwd, "dir"));
    fs.writeFileSync(path.join(cwd, "dir", "file.txt"), "inside\n");
    fs.writeFileSync(path.join(cwd, "top.txt"), "top\n");
    const before = await tree();
    const outside = path.join(root, "outside");
    fs.mkdirSync(outside);
    fs.rmSync(path.join(cwd, "dir"), { recursive: true });
    fs.symlinkSync(outside, path.join(cwd, "dir"));
    fs.writeFileSync(path.join(cwd, "top.txt"), "changed\n");

    await expect(store.restore(cwd, before, ["top.txt", "dir/file.txt"])).rejects.toThrow(/outside/);
    expect(fs.readdirSync(outside)).toEqual([]);
    expect(fs.readFileSync(path.join(cwd, "top.txt"), "utf8")).toBe("changed\n");
  });

  it("leaves out Atrium's data directory when the cwd contains it, and names with glob characters stay literal", async () => {
    store = new SnapshotStore(path.join(cwd, ".atrium", "snapshots"), 100);
    fs.writeFileSync(path.join(cwd, "[a]*.txt"), "literal\n");
    fs.writeFileSync(path.join(cwd, "a.txt"), "plain\n");
    const first = await tree();
    fs.writeFileSync(path.join(cwd, "[a]*.txt"), "edited\n");
    const second = await tree();
    expect(await store.changedPaths(cwd, first, second)).toEqual(["[a]*.txt"]);
    const { files } = await store.changes(cwd, first, second);
    expect(files.map((file) => file.path)).not.toContain(expect.stringContaining(".atrium"));
    await store.restore(cwd, first, ["[a]*.txt"]);
    expect(fs.readFileSync(path.join(cwd, "[a]*.txt"), "utf8")).toBe("literal\n");
    expect(fs.readFileSync(path.join(cwd, "a.txt"), "utf8")).toBe("plain\n");
  });

  it("gives snapshots asked for while one is queued that one, and a later one its own that sees later changes", async () => {
    fs.writeFileSync(path.join(cwd, "a.txt"), "one\n");
    const first = store.snapshot(cwd);
    // Asked for in the same tick: the first has not started, so it serves both.
    const second = store.snapshot(cwd);
    expect(second).toBe(first);
    const [one, two] = await Promise.all([first, second]);
    expect(two).toEqual(one);
    fs.writeFileSync(path.join(cwd, "a.txt"), "two\n");
    const later = await tree();
    expect(later).not.toBe((one as { tree: string }).tree);
  });

  it("does not let a snapshot asked for after a restore share one queued before it", async () => {
    fs.writeFileSync(path.join(cwd, "a.txt"), "one\n");
    const before = await tree();
    fs.writeFileSync(path.join(cwd, "a.txt"), "two\n");
    const queued = store.snapshot(cwd);
    const restoring = store.restore(cwd, before, ["a.txt"]);
    const after = store.snapshot(cwd);
    expect(after).not.toBe(queued);
    await restoring;
    expect(await after).toEqual({ tree: before });
    expect(await queued).not.toEqual({ tree: before });
  });
});
