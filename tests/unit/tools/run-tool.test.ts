import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { readFileTool } from "@/lib/tools/read-file";
import { defineTool, runTool } from "@/lib/tools/tool";
import { createTemporaryDirectory, createToolContext, removeTemporaryDirectory } from "./tool-test-context";

describe("runTool", () => {
  let directory: string;

  beforeEach(async () => {
    directory = await createTemporaryDirectory();
  });

  afterEach(async () => {
    await removeTemporaryDirectory(directory);
  });

  it("returns a failed result naming the field when input is invalid", async () => {
    const result = await runTool(readFileTool, { path: 42, limit: 0 }, createToolContext(directory));

    expect(result.status).toBe("failed");
    expect(result.output).toMatch(/^Invalid input for read_file: path: .*expected string.*; limit: /);
  });

  it("names a missing field", async () => {
    const result = await runTool(readFileTool, {}, createToolContext(directory));

    expect(result).toEqual({
      status: "failed",
      output: "Invalid input for read_file: path: Invalid input: expected string, received undefined",
    });
  });

  it("turns a thrown error into a failed result", async () => {
    const result = await runTool(readFileTool, { path: "missing.txt" }, createToolContext(directory));

    expect(result.status).toBe("failed");
    expect(result.output).toMatch(/^read_file failed: ENOENT: no such file or directory/);
  });

  it("reports an error thrown after an interrupt as interrupted", async () => {
    const controller = new AbortController();
    const waitsForAbort = defineTool({
      name: "waits_for_abort",
      description: "Fails once interrupted.",
      inputSchema: z.object({}),
      execute: (_input, context) =>
        new Promise((_resolve, reject) => {
          context.signal.addEventListener("abort", () => reject(new Error("aborted")));
          controller.abort();
        }),
    });

    const result = await runTool(waitsForAbort, {}, createToolContext(directory, { signal: controller.signal }));

    expect(result).toEqual({ status: "interrupted", output: "waits_for_abort was interrupted" });
  });
});
