import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SnapshotStore } from "@/lib/checkpoints/snapshot-store";

/**
 * A snapshot of a working directory whose stat stamp is unchanged reuses the last tree without
 * running git; any change git would see makes it run git again. The store's clock runs 10 s ahead,
 * so the files the test has just written are past the racy window (statStamp) unless a test says otherwise.
 */
let root: string;
let cwd: string;
let store: SnapshotStore;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-stamp-"));
  cwd = path.join(root, "cwd");
  fs.mkdirSync(path.join(cwd, "src", "deep"), { recursive: true });
  fs.writeFileSync(path.join(cwd, "README.md"), "hello\n");
  fs.writeFileSync(path.join(cwd, "src", "deep", "a.ts"), "export const a = 1;\n");
  fs.writeFileSync(path.join(cwd, ".gitignore"), "build/\n*.log\n");
  fs.mkdirSync(path.join(cwd, "build", "out"), { recursive: true });
  fs.writeFileSync(path.join(cwd, "build", "out", "big.js"), "ignored\n");
  // A directory holding only ignored files, with a subdirectory: git walks both.
  fs.mkdirSync(path.join(cwd, "logs", "old"), { recursive: true });
  fs.writeFileSync(path.join(cwd, "logs", "today.log"), "ignored\n");
  store = new SnapshotStore(path.join(root, "home", "snapshots"), 1000, undefined, () => Date.now() + 10_000);
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

async function tree(): Promise<string> {
  const outcome = await store.snapshot(cwd);
  if (!("tree" in outcome)) throw new Error(outcome.off);
  return outcome.tree;
}

/** The paths in a tree, read with git from the store's own repository. */
function pathsIn(treeId: string): string[] {
  const gitDir = store.target(cwd).gitDir;
  return execFileSync("git", [`--git-dir=${gitDir}`, "ls-tree", "-r", "--name-only", treeId], { encoding: "utf8" }).split("\n").filter(Boolean).sort();
}

describe("snapshot of an unchanged working directory", () => {
  it("reuses the last tree without running git while nothing changed", async () => {
    const first = await tree();
    expect(store.gitSnapshots).toBe(1);
    expect(await tree()).toBe(first);
    expect(await tree()).toBe(first);
    expect(store.gitSnapshots).toBe(1);
    expect(pathsIn(first)).toEqual([".gitignore", "README.md", "src/deep/a.ts"]);
  });

  it("runs git again for every change git would see, and the tree has it", async () => {
    // The last check is only that git runs: git's own index may still take the file as clean (same size, same second).
    const changes: Array<[string, () => void, ((paths: string[]) => void) | null]> = [
      ["content, same size", () => fs.writeFileSync(path.join(cwd, "README.md"), "HELLO\n"), () => undefined],
      ["a new file deep down", () => fs.writeFileSync(path.join(cwd, "src", "deep", "b.ts"), "b\n"), (paths) => expect(paths).toContain("src/deep/b.ts")],
      ["a new file under a folder of ignored files", () => fs.writeFileSync(path.join(cwd, "logs", "old", "notes.txt"), "kept\n"), (paths) => expect(paths).toContain("logs/old/notes.txt")],
      ["a deletion", () => fs.rmSync(path.join(cwd, "src", "deep", "a.ts")), (paths) => expect(paths).not.toContain("src/deep/a.ts")],
      ["the executable bit", () => fs.chmodSync(path.join(cwd, "README.md"), 0o755), () => undefined],
      ["an mtime put back", () => {
        const file = path.join(cwd, "README.md");
        const { atime, mtime } = fs.statSync(file);
        fs.writeFileSync(file, "hullo\n");
        fs.utimesSync(file, atime, mtime);
      }, null],
    ];
    let previous = await tree();
    let runs = store.gitSnapshots;
    for (const [what, change, check] of changes) {
      change();
      const next = await tree();
      expect(store.gitSnapshots, what).toBe(runs + 1);
      if (check) {
        expect(next, what).not.toBe(previous);
        check(pathsIn(next));
      }
      previous = next;
      runs = store.gitSnapshots;
      expect(await tree(), `${what}, unchanged after`).toBe(previous);
      expect(store.gitSnapshots).toBe(runs);
    }
  });

  it("does not run git for changes inside directories git ignores whole", async () => {
    const first = await tree();
    fs.writeFileSync(path.join(cwd, "build", "out", "more.js"), "still ignored\n");
    fs.writeFileSync(path.join(cwd, "build", "out", "big.js"), "changed but ignored\n");
    expect(await tree()).toBe(first);
    expect(store.gitSnapshots).toBe(1);
  });

  it("runs git when the files changed too recently to tell from the stamp (racily clean)", async () => {
    const honest = new SnapshotStore(path.join(root, "home", "snapshots"), 1000);
    const first = await honest.snapshot(cwd);
    // Everything was written moments ago: no stamp is trusted, so the next snapshot asks git again.
    expect(await honest.snapshot(cwd)).toEqual(first);
    expect(honest.gitSnapshots).toBe(2);
  });

  it("runs git when the store lost the tree (its snapshots folder removed)", async () => {
    await tree();
    fs.rmSync(path.join(root, "home", "snapshots"), { recursive: true, force: true });
    const again = await tree();
    expect(store.gitSnapshots).toBe(2);
    expect(pathsIn(again)).toEqual([".gitignore", "README.md", "src/deep/a.ts"]);
  });
});
