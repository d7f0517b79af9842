import { promises as fs, type Dirent } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { resolveToolPath } from "./resolve-tool-path";
import { defineTool, type ToolResult } from "./tool";

export const maximumListedEntries = 1000;

const description = `Lists a directory's entries, sorted by name; directories end with \`/\`.
- path is relative to the working directory, or absolute; "." is the working directory.
- At most ${maximumListedEntries} entries are listed, with a note saying how many more there are.`;

const inputSchema = z.object({
  path: z.string().min(1).describe("The directory to list."),
});

export const listDirTool = defineTool({
  name: "list_dir",
  description,
  inputSchema,
  async execute(input, context): Promise<ToolResult> {
    const directoryPath = resolveToolPath(context, input.path, "read");
    const stats = await fs.stat(directoryPath);
    if (!stats.isDirectory()) {
      return { status: "failed", output: `${input.path} is not a directory; use read_file to read a file` };
    }
    const entries = await fs.readdir(directoryPath, { withFileTypes: true });
    if (entries.length === 0) return { status: "completed", output: `(${input.path} is empty)` };

    entries.sort((left, right) => compareNames(left.name, right.name));
    const shown = entries.slice(0, maximumListedEntries);
    const names = await Promise.all(shown.map((entry) => displayName(directoryPath, entry)));
    const hidden = entries.length - shown.length;
    if (hidden > 0) names.push(`[${hidden} more entries not listed]`);
    return { status: "completed", output: names.join("\n") };
  },
});

/** Code-unit order, not locale order, so the listing is the same on every machine. */
function compareNames(left: string, right: string): number {
  if (left === right) return 0;
  return left < right ? -1 : 1;
}

async function displayName(directoryPath: string, entry: Dirent): Promise<string> {
  if (entry.isDirectory()) return `${entry.name}/`;
  if (entry.isSymbolicLink() && (await pointsToDirectory(path.join(directoryPath, entry.name)))) {
    return `${entry.name}/`;
  }
  return entry.name;
}

async function pointsToDirectory(linkPath: string): Promise<boolean> {
  try {
    return (await fs.stat(linkPath)).isDirectory();
  } catch {
    // A dangling link is still listed, as a plain entry.
    return false;
  }
}
