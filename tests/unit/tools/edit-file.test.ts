import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { editFileTool } from "@/lib/tools/edit-file";
import { runTool } from "@/lib/tools/tool";
import { createTemporaryDirectory, createToolContext, removeTemporaryDirectory } from "./tool-test-context";

describe("edit_file", () => {
  let directory: string;
  let filePath: string;
  const original = "const a = 1;\nconst b = 2;\nconst b2 = 2;\n";

  beforeEach(async () => {
    directory = await createTemporaryDirectory();
    filePath = path.join(directory, "code.ts");
    await fs.writeFile(filePath, original);
  });

  afterEach(async () => {
    await removeTemporaryDirectory(directory);
  });

  const edit = (input: unknown) => runTool(editFileTool, input, createToolContext(directory));

  it("replaces text that occurs exactly once, taking new literally", async () => {
    const result = await edit({ path: "code.ts", old: "const b = 2;", new: "const b = '$&';" });

    expect(result).toEqual({ status: "completed", output: `Edited ${filePath} at line 2` });
    expect(await fs.readFile(filePath, "utf8")).toBe("const a = 1;\nconst b = '$&';\nconst b2 = 2;\n");
  });

  it("fails when old is not found and leaves the file alone", async () => {
    const result = await edit({ path: "code.ts", old: "const c", new: "const d" });

    expect(result).toEqual({
      status: "failed",
      output: "old text not found in code.ts; read the file and copy it exactly",
    });
    expect(await fs.readFile(filePath, "utf8")).toBe(original);
  });

  it("fails when old occurs more than once and asks to make it unique", async () => {
    const result = await edit({ path: "code.ts", old: "= 2;", new: "= 3;" });

    expect(result.status).toBe("failed");
    expect(result.output).toMatch(/^old text found 2 times in code\.ts — make it unique/);
    expect(await fs.readFile(filePath, "utf8")).toBe(original);
  });

  it("rejects an empty old", async () => {
    const result = await edit({ path: "code.ts", old: "", new: "x" });

    expect(result.status).toBe("failed");
    expect(result.output).toMatch(/^Invalid input for edit_file: old: /);
  });
});
