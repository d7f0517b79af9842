import fs from "node:fs";
import path from "node:path";
import * as tar from "tar";
import { AtriumError, badRequest } from "../errors";
import { isId } from "./ids";

const FILE_TYPES = new Set(["File", "OldFile", "ContiguousFile"]);
/** `<id>/artifacts/<artifact-id>` is the deepest path a conversation directory holds. */
const MAX_DEPTH = 3;
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

/**
 * Copies a `.tar.gz` export or one conversation directory into `stagingDir`, refusing the
 * whole source if any entry is unsafe. Returns the ids of the conversations staged.
 */
export async function stageImport(source: string, stagingDir: string): Promise<string[]> {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(source);
  } catch (error) {
    throw new AtriumError("not_found", `${source} does not exist`, { cause: error });
  }
  return stat.isDirectory() ? stageDirectory(source, stagingDir) : stageArchive(source, stagingDir);
}

/**
 * Why an archive entry may not be extracted, or null when it may. Only plain files and
 * directories under a conversation id, at most MAX_DEPTH deep: no links, no `..`, no absolute paths.
 */
export function entryProblem(entryPath: string, type: string): string | null {
  if (!FILE_TYPES.has(type) && type !== "Directory") return `${entryPath}: ${type} entries are refused`;
  if (entryPath.startsWith("/") || /^[A-Za-z]:/.test(entryPath) || entryPath.includes("\\")) {
    return `${entryPath}: absolute paths are refused`;
  }
  const segments = entrySegments(entryPath);
  if (segments.length === 0) return type === "Directory" ? null : `${entryPath}: not a conversation entry`;
  const bad = segments.find(
    (segment) => segment === "" || segment === "." || segment === ".." || CONTROL_CHARACTERS.test(segment),
  );
  if (bad !== undefined) return `${entryPath}: the path segment "${bad}" is refused`;
  if (!isId(segments[0])) return `${entryPath}: ${segments[0]} is not a conversation id`;
  if (segments.length > MAX_DEPTH) return `${entryPath}: nested too deep for a conversation directory`;
  if (segments.length === 1 && type !== "Directory") return `${entryPath}: a conversation must be a directory`;
  return null;
}

/** The path's segments without a leading `./` and a trailing `/`. */
function entrySegments(entryPath: string): string[] {
  const segments = entryPath.split("/");
  if (segments.at(-1) === "") segments.pop();
  while (segments[0] === ".") segments.shift();
  return segments;
}

async function stageArchive(file: string, stagingDir: string): Promise<string[]> {
  const problems: string[] = [];
  const ids = new Set<string>();
  try {
    await tar.t({
      file,
      strict: true,
      onReadEntry: (entry) => {
        const problem = entryProblem(entry.path, entry.type);
        const [id] = entrySegments(entry.path);
        if (problem) problems.push(problem);
        else if (id !== undefined) ids.add(id);
      },
    });
  } catch (error) {
    throw badRequest(`${file} is not a readable .tar.gz export: ${(error as Error).message}`);
  }
  if (problems.length > 0) {
    const more = problems.length > 5 ? ` (and ${problems.length - 5} more)` : "";
    throw badRequest(`${file} cannot be imported: ${problems.slice(0, 5).join("; ")}${more}`);
  }
  if (ids.size === 0) throw badRequest(`${file} holds no conversation`);
  // preserveOwner defaults to true for root: never let an archive choose file owners.
  await tar.x({ file, cwd: stagingDir, strict: true, preserveOwner: false });
  return [...ids].sort();
}

function stageDirectory(source: string, stagingDir: string): string[] {
  const id = path.basename(path.resolve(source));
  if (!isId(id)) {
    throw badRequest(`${source} is not a conversation directory: its name must be the conversation id`);
  }
  copyTree(source, path.join(stagingDir, id), [id]);
  return [id];
}

function copyTree(from: string, to: string, segments: string[]): void {
  fs.mkdirSync(to);
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const entryPath = [...segments, entry.name].join("/");
    const type = entry.isDirectory()
      ? "Directory"
      : entry.isFile()
        ? "File"
        : entry.isSymbolicLink()
          ? "SymbolicLink"
          : "special file";
    const problem = entryProblem(entryPath, type);
    if (problem) throw badRequest(`${from} cannot be imported: ${problem}`);
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) copyTree(source, target, [...segments, entry.name]);
    else fs.copyFileSync(source, target);
  }
}
