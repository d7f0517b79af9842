import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runTool } from "@/lib/tools/tool";
import { writeFileTool } from "@/lib/tools/write-file";
import { createTemporaryDirectory, createToolContext, removeTemporaryDirectory } from "./tool-test-context";

describe("write_file", () => {
  let directory: string;

  beforeEach(async () => {
    directory = await createTemporaryDirectory();
  });

  afterEach(async () => {
    await removeTemporaryDirectory(directory);
  });

  const write = (input: unknown) => runTool(writeFileTool, input, createToolContext(directory));

  it("creates missing parent directories and counts bytes", async () => {
    const result = await write({ path: "deep/er/note.txt", content: "café\n" });

    const filePath = path.join(directory, "deep/er/note.txt");
    expect(result).toEqual({ status: "completed", output: `Wrote 6 bytes to ${filePath}` });
    expect(await fs.readFile(filePath, "utf8")).toBe("café\n");
  });

  it("replaces an existing file, keeps its mode and leaves no temporary file", async () => {
    const filePath = path.join(directory, "run.sh");
    await fs.writeFile(filePath, "old");
    await fs.chmod(filePath, 0o755);

    await write({ path: "run.sh", content: "#!/bin/sh\n" });

    expect(await fs.readFile(filePath, "utf8")).toBe("#!/bin/sh\n");
    expect((await fs.stat(filePath)).mode & 0o777).toBe(0o755);
    expect(await fs.readdir(directory)).toEqual(["run.sh"]);
  });

  it("writes through a symlink to its target", async () => {
    await fs.writeFile(path.join(directory, "target.txt"), "old");
    await fs.symlink(path.join(directory, "target.txt"), path.join(directory, "link.txt"));

    await write({ path: "link.txt", content: "new" });

    expect((await fs.lstat(path.join(directory, "link.txt"))).isSymbolicLink()).toBe(true);
    expect(await fs.readFile(path.join(directory, "target.txt"), "utf8")).toBe("new");
  });

  it("names a missing content field", async () => {
    const result = await write({ path: "a.txt" });

    expect(result.status).toBe("failed");
    expect(result.output).toMatch(/^Invalid input for write_file: content: /);
  });
});
