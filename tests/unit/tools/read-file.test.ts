import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readFileTool } from "@/lib/tools/read-file";
import { runTool } from "@/lib/tools/tool";
import { createTemporaryDirectory, createToolContext, removeTemporaryDirectory } from "./tool-test-context";

describe("read_file", () => {
  let directory: string;

  beforeEach(async () => {
    directory = await createTemporaryDirectory();
    await fs.writeFile(path.join(directory, "five.txt"), "one\ntwo\nthree\nfour\nfive\n");
  });

  afterEach(async () => {
    await removeTemporaryDirectory(directory);
  });

  const read = (input: unknown) => runTool(readFileTool, input, createToolContext(directory));

  it("numbers every line like cat -n", async () => {
    const result = await read({ path: "five.txt" });

    expect(result).toEqual({
      status: "completed",
      output: "     1\tone\n     2\ttwo\n     3\tthree\n     4\tfour\n     5\tfive",
    });
  });

  it("reads from offset up to limit lines and says where to read on", async () => {
    const result = await read({ path: "five.txt", offset: 2, limit: 2 });

    expect(result.output).toBe(
      "     2\ttwo\n     3\tthree\n[showing lines 2-3; the file continues: read on with offset 4]",
    );
  });

  it("adds no note when the window reaches the end", async () => {
    const result = await read({ path: "five.txt", offset: 4, limit: 2 });

    expect(result.output).toBe("     4\tfour\n     5\tfive");
  });

  it("accepts an absolute path and CRLF line endings", async () => {
    const filePath = path.join(directory, "windows.txt");
    await fs.writeFile(filePath, "first\r\nsecond\r\n");

    const result = await read({ path: filePath });

    expect(result.output).toBe("     1\tfirst\n     2\tsecond");
  });

  it("fails when offset is past the end", async () => {
    const result = await read({ path: "five.txt", offset: 9 });

    expect(result).toEqual({ status: "failed", output: "five.txt has 5 lines; offset 9 is past the end" });
  });

  it("says when a file is empty", async () => {
    await fs.writeFile(path.join(directory, "empty.txt"), "");

    expect(await read({ path: "empty.txt" })).toEqual({ status: "completed", output: "(empty.txt is empty)" });
  });

  it("refuses a binary file", async () => {
    await fs.writeFile(path.join(directory, "image.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));

    const result = await read({ path: "image.png" });

    expect(result.status).toBe("failed");
    expect(result.output).toMatch(/^image\.png looks like a binary file/);
  });

  it("refuses a directory and points to list_dir", async () => {
    await fs.mkdir(path.join(directory, "source"));

    const result = await read({ path: "source" });

    expect(result).toEqual({ status: "failed", output: "source is a directory; use list_dir to see its entries" });
  });
});
