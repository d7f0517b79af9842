import { z } from "zod";
import { resolveToolPath } from "./resolve-tool-path";
import { defineTool, type ToolResult } from "./tool";
import { writeFileAtomically } from "./write-file-atomically";

const description = `Writes a file with the given content, replacing it if it exists.
- path is relative to the working directory, or absolute; missing parent directories are created.
- To change part of an existing file, prefer edit_file.`;

const inputSchema = z.object({
  path: z.string().min(1).describe("The file to write."),
  content: z.string().describe("The file's full new content."),
});

export const writeFileTool = defineTool({
  name: "write_file",
  description,
  inputSchema,
  async execute(input, context): Promise<ToolResult> {
    const filePath = resolveToolPath(context, input.path, "write");
    await writeFileAtomically(filePath, input.content);
    const bytes = Buffer.byteLength(input.content, "utf8");
    return { status: "completed", output: `Wrote ${bytes} bytes to ${filePath}` };
  },
});
