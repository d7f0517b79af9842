import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listDirTool, maximumListedEntries } from "@/lib/tools/list-dir";
import { runTool } from "@/lib/tools/tool";
import { createTemporaryDirectory, createToolContext, removeTemporaryDirectory } from "./tool-test-context";

describe("list_dir", () => {
  let directory: string;

  beforeEach(async () => {
    directory = await createTemporaryDirectory();
  });

  afterEach(async () => {
    await removeTemporaryDirectory(directory);
  });

  const list = (input: unknown) => runTool(listDirTool, input, createToolContext(directory));

  it("lists entries sorted, directories with a trailing slash", async () => {
    await fs.writeFile(path.join(directory, "b.txt"), "");
    await fs.writeFile(path.join(directory, "a.txt"), "");
    await fs.mkdir(path.join(directory, "c"));
    await fs.mkdir(path.join(directory, "B"));
    await fs.symlink(path.join(directory, "c"), path.join(directory, "link-to-c"));

    const result = await list({ path: "." });

    expect(result).toEqual({ status: "completed", output: "B/\na.txt\nb.txt\nc/\nlink-to-c/" });
  });

  it("stops at the entry limit and says how many more there are", async () => {
    const names = Array.from({ length: maximumListedEntries + 5 }, (_, index) => `file-${String(index).padStart(4, "0")}`);
    await Promise.all(names.map((name) => fs.writeFile(path.join(directory, name), "")));

    const lines = (await list({ path: directory })).output.split("\n");

    expect(lines).toHaveLength(maximumListedEntries + 1);
    expect(lines[0]).toBe("file-0000");
    expect(lines[maximumListedEntries - 1]).toBe("file-0999");
    expect(lines.at(-1)).toBe("[5 more entries not listed]");
  });

  it("says when a directory is empty", async () => {
    await fs.mkdir(path.join(directory, "empty"));

    expect(await list({ path: "empty" })).toEqual({ status: "completed", output: "(empty is empty)" });
  });

  it("refuses a file", async () => {
    await fs.writeFile(path.join(directory, "notes.txt"), "");

    const result = await list({ path: "notes.txt" });

    expect(result).toEqual({ status: "failed", output: "notes.txt is not a directory; use read_file to read a file" });
  });
});
