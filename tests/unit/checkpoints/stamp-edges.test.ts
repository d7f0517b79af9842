import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MAX_SNAPSHOT_FILE_BYTES, SnapshotStore } from "@/lib/checkpoints/snapshot-store";

/**
 * The edges of the stat stamp (issue 25 review): ignore files that ignore themselves, file names
 * that are not UTF-8, the user's global excludes file, and listings past the file cap. Real files,
 * real git; the store's clock runs 10 s ahead so the files just written are past the racy window.
 */
let root: string;
let cwd: string;
let store: SnapshotStore;
const saved = { HOME: process.env.HOME, PATH: process.env.PATH };

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-stamp-edges-"));
  cwd = path.join(root, "cwd");
  fs.mkdirSync(path.join(cwd, "sub"), { recursive: true });
  fs.writeFileSync(path.join(cwd, "ok.txt"), "x\n");
  store = new SnapshotStore(path.join(root, "home", "snapshots"), 1000, undefined, () => Date.now() + 10_000);
});
afterEach(() => {
  process.env.HOME = saved.HOME;
  process.env.PATH = saved.PATH;
  fs.rmSync(root, { recursive: true, force: true });
});

async function tree(): Promise<string> {
  const outcome = await store.snapshot(cwd);
  if (!("tree" in outcome)) throw new Error(outcome.off);
  return outcome.tree;
}

function git(...args: string[]): Buffer {
  return execFileSync("git", [`--git-dir=${store.target(cwd).gitDir}`, ...args]);
}

/** The paths in a tree, as raw bytes (latin1), from the store's own repository. */
function pathsIn(treeId: string): string[] {
  return git("ls-tree", "-r", "-z", "--name-only", treeId).toString("latin1").split("\0").filter(Boolean).sort();
}

describe("the stat stamp's edges", () => {
  it.each([
    ["the root .gitignore", ""],
    ["a .gitignore in a subdirectory", "sub"],
  ])("an in-place edit of %s that ignores itself makes git run again, and the tree takes what it no longer ignores", async (_what, folder) => {
    const rules = path.join(cwd, folder, ".gitignore");
    fs.writeFileSync(rules, ".*\n*.tmp\n");
    fs.writeFileSync(path.join(cwd, folder, "draft.tmp"), "draft\n");
    const first = await tree();
    const draft = folder === "" ? "draft.tmp" : `${folder}/draft.tmp`;
    expect(pathsIn(first)).not.toContain(draft);
    // Same directory entries, same directory times: only the file itself says it changed.
    fs.writeFileSync(rules, ".*\n#tmp\n");
    const next = await tree();
    expect(store.gitSnapshots).toBe(2);
    expect(pathsIn(next)).toContain(draft);
  });

  it("a directory whose files are all ignored (no pattern ignores it) is still walked: a new file there makes git run again", async () => {
    fs.writeFileSync(path.join(cwd, ".gitignore"), "*.log\n");
    fs.writeFileSync(path.join(cwd, "sub", "today.log"), "ignored\n");
    const first = await tree();
    expect(pathsIn(first)).toEqual([".gitignore", "ok.txt"]);
    fs.writeFileSync(path.join(cwd, "sub", "notes.txt"), "kept\n");
    expect(pathsIn(await tree())).toContain("sub/notes.txt");
    expect(store.gitSnapshots).toBe(2);
  });

  it("a file whose name is not UTF-8 is stamped by its bytes: a change to it makes git run again", async () => {
    const name = Buffer.from([0x66, 0xff, 0x2e, 0x74, 0x78, 0x74]);
    const file = Buffer.concat([Buffer.from(`${cwd}/`), name]);
    fs.writeFileSync(file, "one\n");
    const first = await tree();
    expect(pathsIn(first)).toContain(name.toString("latin1"));
    expect(await tree()).toBe(first);
    expect(store.gitSnapshots).toBe(1);
    fs.writeFileSync(file, "two\n");
    const next = await tree();
    expect(store.gitSnapshots).toBe(2);
    expect(next).not.toBe(first);
    const entry = git("ls-tree", "-z", next).toString("latin1").split("\0").find((line) => line.endsWith(`\t${name.toString("latin1")}`));
    expect(git("cat-file", "blob", entry!.split(/\s/)[2]).toString()).toBe("two\n");
  });

  it("a file over the size limit whose name is not UTF-8 is left out, and the rest is taken", async () => {
    const name = Buffer.from([0x62, 0x69, 0x67, 0xfe, 0x2e, 0x62, 0x69, 0x6e]);
    const file = Buffer.concat([Buffer.from(`${cwd}/`), name]);
    fs.writeFileSync(file, "");
    fs.truncateSync(file, MAX_SNAPSHOT_FILE_BYTES + 1);
    expect(pathsIn(await tree())).toEqual(["ok.txt"]);
  });

  it("the user's global excludes file ($HOME/.config/git/ignore) does not change what a snapshot takes", async () => {
    const home = path.join(root, "user-home");
    fs.mkdirSync(path.join(home, ".config", "git"), { recursive: true });
    fs.writeFileSync(path.join(home, ".config", "git", "ignore"), "*.secret\n");
    process.env.HOME = home;
    fs.writeFileSync(path.join(cwd, "a.secret"), "kept\n");
    const first = await tree();
    expect(pathsIn(first)).toContain("a.secret");
    // Outside the cwd, unseen by the stamp: and git does not read it, so the stamp stays true.
    fs.writeFileSync(path.join(home, ".config", "git", "ignore"), "*.txt\n");
    expect(await tree()).toBe(first);
  });

  it("lists the ignored directories only once the files are known to be within the cap, and caps that listing too", async () => {
    // A git that writes down each listing it is asked for, then runs the real one.
    const bin = path.join(root, "bin");
    const log = path.join(root, "git.log");
    fs.mkdirSync(bin);
    const real = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
    fs.writeFileSync(path.join(bin, "git"), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${real}' "$@"\n`, { mode: 0o755 });
    process.env.PATH = `${bin}:${saved.PATH}`;
    const small = new SnapshotStore(path.join(root, "home", "snapshots"), 20, undefined, () => Date.now() + 10_000);
    for (let index = 0; index < 30; index++) fs.writeFileSync(path.join(cwd, `file${index}.txt`), `${index}\n`);
    expect(await small.snapshot(cwd)).toEqual({ off: expect.stringContaining("more than 20 files") });
    const ignoredListings = () => fs.readFileSync(log, "utf8").split("\n").filter((line) => line.includes("--ignored"));
    expect(ignoredListings(), "no ignored listing for a tree over the cap").toEqual([]);

    // Within the cap, but with more ignored files than the cap outside any ignored directory: no stamp, git runs each time.
    const other = path.join(root, "other");
    fs.mkdirSync(other);
    fs.writeFileSync(path.join(other, ".gitignore"), "*.log\n");
    for (let index = 0; index < 30; index++) fs.writeFileSync(path.join(other, `run${index}.log`), `${index}\n`);
    const first = await small.snapshot(other);
    expect(first).toHaveProperty("tree");
    expect(await small.snapshot(other)).toEqual(first);
    expect(small.gitSnapshots).toBe(3);
    expect(ignoredListings()).toHaveLength(2);
  });
});
