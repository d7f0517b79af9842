import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { writeFileAtomically } from "@/lib/tools/write-file-atomically";

// The temporary name is random; fixing the randomness stands for an attacker who guessed it.
vi.mock("node:crypto", async (importOriginal) => ({
  ...(await importOriginal<typeof import("node:crypto")>()),
  randomBytes: (size: number) => Buffer.alloc(size, 0),
}));

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) fs.rmSync(folder, { recursive: true, force: true });
});

describe("writeFileAtomically", () => {
  it("never writes through a link planted at its temporary name (exclusive create, no follow)", async () => {
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-write-"));
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-outside-"));
    folders.push(cwd, outside);
    const secret = path.join(outside, "secret.txt");
    fs.writeFileSync(secret, "untouched\n", { mode: 0o600 });
    fs.chmodSync(secret, 0o600);
    const target = path.join(cwd, "notes.txt");
    fs.writeFileSync(target, "old\n", { mode: 0o644 });
    fs.symlinkSync(secret, path.join(cwd, `.notes.txt.${process.pid}.${"00".repeat(6)}.tmp`));

    await expect(writeFileAtomically(target, "new\n")).rejects.toMatchObject({ code: "EEXIST" });

    expect(fs.readFileSync(secret, "utf8")).toBe("untouched\n");
    expect(fs.statSync(secret).mode & 0o7777).toBe(0o600);
    expect(fs.readFileSync(target, "utf8")).toBe("old\n");
  });

  it("writes and keeps the mode of an existing file", async () => {
    const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-write-"));
    folders.push(cwd);
    const target = path.join(cwd, "run.sh");
    fs.writeFileSync(target, "echo old\n", { mode: 0o755 });
    fs.chmodSync(target, 0o755);
    await writeFileAtomically(target, "echo new\n");
    expect(fs.readFileSync(target, "utf8")).toBe("echo new\n");
    expect(fs.statSync(target).mode & 0o777).toBe(0o755);
    expect(fs.readdirSync(cwd)).toEqual(["run.sh"]);
  });
});
