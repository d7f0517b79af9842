import { promises as fs } from "node:fs";
import { createTwoFilesPatch } from "diff";
import { resolveToolPath } from "./resolve-tool-path";
import type { ToolContext } from "./tool";

const withNewline = (text: string) => (text === "" || text.endsWith("\n") ? text : `${text}\n`);
const field = (input: unknown, name: string) => {
  const value = typeof input === "object" && input !== null ? (input as Record<string, unknown>)[name] : undefined;
  return typeof value === "string" ? value : null;
};

async function readIfThere(filePath: string): Promise<string | null> {
  try {
    return await fs.readFile(filePath, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/**
 * What a waiting write_file or edit_file call would do to the file as it is now: a unified diff
 * with the file's real line numbers and three lines of context. The path goes through the same
 * rules as the tool's own (inside the working directory, never the data directory); null when the
 * call would fail (no such file, `old` not found once) or is not a file change.
 */
export async function previewFileChange(context: Pick<ToolContext, "cwd" | "sandbox">, toolName: string, input: unknown): Promise<string | null> {
  const requested = field(input, "path");
  if (!requested || (toolName !== "edit_file" && toolName !== "write_file")) return null;
  let filePath: string;
  try {
    filePath = resolveToolPath(context, requested, "write");
  } catch {
    return null;
  }
  const before = await readIfThere(filePath);
  let after: string;
  if (toolName === "write_file") {
    const content = field(input, "content");
    if (content === null) return null;
    after = content;
  } else {
    const old = field(input, "old");
    const replacement = field(input, "new");
    if (before === null || old === null || replacement === null) return null;
    const position = before.indexOf(old);
    if (position === -1 || before.indexOf(old, position + 1) !== -1) return null;
    after = before.slice(0, position) + replacement + before.slice(position + old.length);
  }
  const oldName = before === null ? "/dev/null" : `a/${requested}`;
  return createTwoFilesPatch(oldName, `b/${requested}`, withNewline(before ?? ""), withNewline(after), undefined, undefined, { context: 3 }).replace(/^=+\n/m, "");
}
