import { createReadStream, promises as fs } from "node:fs";
import { createInterface } from "node:readline";
import { z } from "zod";
import { resolveToolPath } from "./resolve-tool-path";
import { defineTool, type ToolResult } from "./tool";

export const defaultReadLineLimit = 2000;
const binaryProbeBytes = 8192;

const description = `Reads a text file and returns its lines, each prefixed with its line number (like \`cat -n\`).
- path is relative to the working directory, or absolute.
- offset is the first line to read (1-based, default 1); limit is how many lines (default ${defaultReadLineLimit}).
- When the file continues past the lines returned, a last note gives the offset to read on from.
- Binary files and directories are refused; use list_dir for directories.`;

const inputSchema = z.object({
  path: z.string().min(1).describe("The file to read."),
  offset: z.number().int().min(1).optional().describe("First line to read, 1-based; default 1."),
  limit: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(`How many lines to read; default ${defaultReadLineLimit}.`),
});

export const readFileTool = defineTool({
  name: "read_file",
  description,
  inputSchema,
  async execute(input, context): Promise<ToolResult> {
    const filePath = resolveToolPath(context, input.path, "read");
    const stats = await fs.stat(filePath);
    if (stats.isDirectory()) {
      return { status: "failed", output: `${input.path} is a directory; use list_dir to see its entries` };
    }
    if (!stats.isFile()) return { status: "failed", output: `${input.path} is not a regular file` };
    if (await looksBinary(filePath)) {
      return {
        status: "failed",
        output: `${input.path} looks like a binary file (it has a NUL byte); read_file reads only text files`,
      };
    }
    return readLines(filePath, input.path, input.offset ?? 1, input.limit ?? defaultReadLineLimit);
  },
});

async function looksBinary(filePath: string): Promise<boolean> {
  const handle = await fs.open(filePath, "r");
  try {
    const buffer = Buffer.alloc(binaryProbeBytes);
    const { bytesRead } = await handle.read(buffer, 0, binaryProbeBytes, 0);
    return buffer.subarray(0, bytesRead).includes(0);
  } finally {
    await handle.close();
  }
}

/** Streams the file and stops one line past the window, so a huge file costs only what is shown. */
async function readLines(filePath: string, shownPath: string, offset: number, limit: number): Promise<ToolResult> {
  const stream = createReadStream(filePath, { encoding: "utf8" });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  const numbered: string[] = [];
  let lineNumber = 0;
  let continues = false;
  try {
    for await (const line of lines) {
      lineNumber += 1;
      if (lineNumber < offset) continue;
      if (numbered.length === limit) {
        continues = true;
        break;
      }
      numbered.push(`${String(lineNumber).padStart(6, " ")}\t${line}`);
    }
  } finally {
    lines.close();
    stream.destroy();
  }

  if (lineNumber === 0) return { status: "completed", output: `(${shownPath} is empty)` };
  if (numbered.length === 0) {
    return {
      status: "failed",
      output: `${shownPath} has ${lineNumber} lines; offset ${offset} is past the end`,
    };
  }
  const lastShown = offset + numbered.length - 1;
  if (continues) {
    numbered.push(
      `[showing lines ${offset}-${lastShown}; the file continues: read on with offset ${lastShown + 1}]`,
    );
  }
  return { status: "completed", output: numbered.join("\n") };
}
