import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { bwrapArguments } from "@/lib/sandbox/bwrap-arguments";
import type { SandboxPolicy } from "@/lib/sandbox/sandbox-policy";
import { seatbeltProfile } from "@/lib/sandbox/seatbelt-profile";

let root: string;
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

function layout() {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "atrium-sandbox-args-")));
  const home = path.join(root, "home");
  const project = path.join(root, "project");
  const extra = path.join(root, "extra");
  for (const directory of [home, project, extra, path.join(home, "workspace")]) fs.mkdirSync(directory, { recursive: true });
  return { home, project, extra };
}

const policy = (home: string, overrides: Partial<SandboxPolicy> = {}): SandboxPolicy => ({ mode: "workspace-write", network: false, writable: [], home, ...overrides });

/** The mount arguments as [flag, ...operands] groups, in order. */
function mounts(args: string[]): string[][] {
  const groups: string[][] = [];
  for (let index = 0; index < args.indexOf("--"); index++) {
    const flag = args[index];
    const arity = { "--ro-bind": 2, "--bind": 2, "--dev": 1, "--proc": 1, "--tmpfs": 1, "--chdir": 1 }[flag] ?? 0;
    groups.push(args.slice(index, index + 1 + arity));
    index += arity;
  }
  return groups;
}

describe("bwrap arguments", () => {
  it("mount a read-only root, private /tmp, the cwd writable and the data directory hidden, then unshare pid and net", () => {
    const { home, project } = layout();
    const args = bwrapArguments(policy(home), project, ["bash", "-c", "true"]);
    expect(mounts(args)).toEqual([
      ["--ro-bind", "/", "/"],
      ["--dev", "/dev"],
      ["--proc", "/proc"],
      ["--tmpfs", "/tmp"],
      ["--bind", project, project],
      ["--tmpfs", home],
      ["--unshare-pid"],
      ["--unshare-net"],
      ["--die-with-parent"],
      ["--chdir", project],
    ]);
    expect(args.slice(args.indexOf("--") + 1)).toEqual(["bash", "-c", "true"]);
  });

  it("keep the network with sandbox.network, bind sandbox.writable, and bind the cwd read-only in read-only mode", () => {
    const { home, project, extra } = layout();
    const open = bwrapArguments(policy(home, { network: true, writable: [extra] }), project, ["true"]);
    expect(open).not.toContain("--unshare-net");
    expect(mounts(open)).toContainEqual(["--bind", extra, extra]);
    const readOnly = bwrapArguments(policy(home, { mode: "read-only", writable: [extra] }), project, ["true"]);
    expect(mounts(readOnly)).toContainEqual(["--ro-bind", project, project]);
    expect(readOnly).not.toContain(extra);
  });

  it("mount a cwd inside the data directory after hiding the directory, and refuse the data directory itself as cwd", () => {
    const { home } = layout();
    const workspace = path.join(home, "workspace");
    const groups = mounts(bwrapArguments(policy(home), workspace, ["true"]));
    const hidden = groups.findIndex((group) => group[0] === "--tmpfs" && group[1] === home);
    const bound = groups.findIndex((group) => group[0] === "--bind" && group[1] === workspace);
    expect(hidden).toBeGreaterThan(-1);
    expect(bound).toBeGreaterThan(hidden);
    expect(() => bwrapArguments(policy(home), home, ["true"])).toThrow(/data directory/);
  });

  it("show the home's skills folder read-only over the hidden data directory", () => {
    const { home, project } = layout();
    const skills = path.join(home, "skills");
    fs.mkdirSync(skills);
    const groups = mounts(bwrapArguments(policy(home), project, ["true"]));
    const hidden = groups.findIndex((group) => group[0] === "--tmpfs" && group[1] === home);
    expect(groups.findIndex((group) => group.join(" ") === `--ro-bind ${skills} ${skills}`)).toBe(hidden + 1);
  });
});

describe("sandbox-exec profile", () => {
  it("denies by default, reads broadly, writes the cwd and temp folders, denies the data directory, no network", () => {
    const profile = seatbeltProfile(policy("/Users/me/.local/share/atrium"), "/Users/me/project");
    const lines = profile.trim().split("\n");
    expect(lines[0]).toBe("(version 1)");
    expect(lines).toContain("(deny default)");
    expect(lines).toContain("(allow file-read*)");
    expect(lines.find((line) => line.startsWith("(allow file-write*"))).toContain('(subpath "/Users/me/project")');
    const readAll = lines.indexOf("(allow file-read*)");
    const denyHome = lines.indexOf('(deny file-read* file-write* (subpath "/Users/me/.local/share/atrium"))');
    expect(denyHome).toBeGreaterThan(readAll);
    expect(profile).not.toContain("network");
  });

  it("allows the network when asked, no writes in read-only mode, and quotes paths", () => {
    const open = seatbeltProfile(policy("/h", { network: true }), '/p "quoted"');
    expect(open).toContain("(allow network*)");
    expect(open).toContain('(subpath "/p \\"quoted\\"")');
    const readOnly = seatbeltProfile(policy("/h", { mode: "read-only" }), "/p");
    expect(readOnly).not.toContain('(subpath "/p")');
  });
});
