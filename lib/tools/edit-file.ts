import { promises as fs } from "node:fs";
import { z } from "zod";
import { resolveToolPath } from "./resolve-tool-path";
import { defineTool, type ToolResult } from "./tool";
import { writeFileAtomically } from "./write-file-atomically";

const description = `Replaces one exact piece of text in a file.
- old must occur exactly once in the file, including its whitespace and indentation; add surrounding lines to make it unique.
- new replaces it as is; an empty new deletes old.
- Read the file first (read_file) and copy old from it without the line-number prefixes.`;

const inputSchema = z.object({
  path: z.string().min(1).describe("The file to edit."),
  old: z.string().min(1).describe("The exact text to replace; it must occur once."),
  new: z.string().describe("The text to put in its place."),
});

export const editFileTool = defineTool({
  name: "edit_file",
  description,
  inputSchema,
  async execute(input, context): Promise<ToolResult> {
    const filePath = resolveToolPath(context, input.path, "write");
    const content = await fs.readFile(filePath, "utf8");
    const positions = occurrences(content, input.old);
    if (positions.length === 0) {
      return { status: "failed", output: `old text not found in ${input.path}; read the file and copy it exactly` };
    }
    if (positions.length > 1) {
      return {
        status: "failed",
        output: `old text found ${positions.length} times in ${input.path} — make it unique by including more of the surrounding lines`,
      };
    }
    const [position] = positions;
    // Slicing rather than String.replace, which would read "$&" and "$1" in new as patterns.
    const edited = content.slice(0, position) + input.new + content.slice(position + input.old.length);
    await writeFileAtomically(filePath, edited);
    const line = content.slice(0, position).split("\n").length;
    return { status: "completed", output: `Edited ${filePath} at line ${line}` };
  },
});

/** Overlapping matches count too: "aa" in "aaa" is ambiguous, so it counts twice. */
function occurrences(content: string, text: string): number[] {
  const positions: number[] = [];
  for (let index = content.indexOf(text); index !== -1; index = content.indexOf(text, index + 1)) {
    positions.push(index);
  }
  return positions;
}
