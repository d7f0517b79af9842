import fs from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
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
export async function stageImport(source: string, stagingDir: string, limits: ImportLimits = DEFAULT_IMPORT_LIMITS): Promise<string[]> {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(source);
  } catch (error) {
    throw new AtriumError("not_found", `${source} does not exist`, { cause: error });
  }
  return stat.isDirectory() ? stageDirectory(source, stagingDir, limits) : stageArchive(source, stagingDir, limits);
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

/** Refused before anything is extracted: an archive past either limit is a bomb, not an export. */
export interface ImportLimits {
  entries: number;
  bytes: number;
}

export const DEFAULT_IMPORT_LIMITS: ImportLimits = { entries: 10_000, bytes: 2 * 1024 ** 3 };

/** Counts entries and declared sizes; the first one past a limit stops the count (and the read). */
class EntryBudget {
  entries = 0;
  bytes = 0;
  constructor(
    private readonly source: string,
    private readonly limits: ImportLimits,
  ) {}

  /** The refusal once a limit is passed, else null. */
  add(size: number): AtriumError | null {
    this.entries += 1;
    this.bytes += size;
    if (this.entries > this.limits.entries) {
      return badRequest(`${this.source} cannot be imported: it holds more than ${this.limits.entries} entries`);
    }
    if (this.bytes > this.limits.bytes) {
      return badRequest(`${this.source} cannot be imported: it unpacks to more than ${this.limits.bytes} bytes`);
    }
    return null;
  }
}

async function stageArchive(file: string, stagingDir: string, limits: ImportLimits): Promise<string[]> {
  const problems: string[] = [];
  const ids = new Set<string>();
  const budget = new EntryBudget(file, limits);
  let refusal: AtriumError | null = null;
  const source = fs.createReadStream(file);
  // Streamed through the parser (nothing is buffered but the current block): a bomb is refused
  // at the header that passes the limit, before its data is even inflated.
  const listing = tar.t({
    strict: true,
    onReadEntry: (entry) => {
      refusal ??= budget.add(entry.size ?? 0);
      if (refusal) return source.destroy(refusal);
      const problem = entryProblem(entry.path, entry.type);
      const [id] = entrySegments(entry.path);
      if (problem) problems.push(problem);
      else if (id !== undefined) ids.add(id);
    },
  });
  try {
    await pipeline(source, listing);
  } catch (error) {
    if (refusal) throw refusal;
    throw badRequest(`${file} is not a readable .tar.gz export: ${(error as Error).message}`);
  }
  if (problems.length > 0) {
    const more = problems.length > 5 ? ` (and ${problems.length - 5} more)` : "";
    throw badRequest(`${file} cannot be imported: ${problems.slice(0, 5).join("; ")}${more}`);
  }
  if (ids.size === 0) throw badRequest(`${file} holds no conversation`);
  await extractChecked(file, stagingDir, limits);
  normalizeModes(stagingDir);
  return [...ids].sort();
}

/** The extraction checks every entry again: the file may have changed since it was listed. */
async function extractChecked(file: string, stagingDir: string, limits: ImportLimits): Promise<void> {
  const budget = new EntryBudget(file, limits);
  let refusal: AtriumError | null = null;
  const extract = tar.x({
    cwd: stagingDir,
    strict: true,
    // preserveOwner defaults to true for root: never let an archive choose file owners.
    preserveOwner: false,
    filter: (entryPath, entry) => {
      const size = "size" in entry ? (entry.size ?? 0) : 0;
      refusal ??= budget.add(size) ?? (entryProblem(entryPath, "type" in entry ? entry.type : "unknown") ? badRequest(`${file} changed while it was imported`) : null);
      if (refusal) extract.abort(refusal);
      return refusal === null;
    },
  });
  try {
    await pipeline(fs.createReadStream(file), extract);
  } catch (error) {
    throw refusal ?? error;
  }
  if (refusal) throw refusal;
}

/** DESIGN §2: 0644, or 0755 for what was executable; never setuid, setgid or sticky. */
function normalizeModes(directory: string): void {
  for (const entry of fs.readdirSync(directory, { withFileTypes: true })) {
    const target = path.join(directory, entry.name);
    if (entry.isDirectory()) {
      fs.chmodSync(target, 0o755);
      normalizeModes(target);
    } else if (entry.isFile()) {
      fs.chmodSync(target, fs.statSync(target).mode & 0o111 ? 0o755 : 0o644);
    }
  }
}

function stageDirectory(source: string, stagingDir: string, limits: ImportLimits): string[] {
  const id = path.basename(path.resolve(source));
  if (!isId(id)) {
    throw badRequest(`${source} is not a conversation directory: its name must be the conversation id`);
  }
  const budget = new EntryBudget(source, limits);
  checkTree(source, [id], budget);
  copyTree(source, path.join(stagingDir, id), [id]);
  normalizeModes(stagingDir);
  return [id];
}

function entryType(entry: fs.Dirent): string {
  if (entry.isDirectory()) return "Directory";
  if (entry.isFile()) return "File";
  return entry.isSymbolicLink() ? "SymbolicLink" : "special file";
}

/** Every entry is checked (kinds, names, count, size) before the first byte is copied. */
function checkTree(from: string, segments: string[], budget: EntryBudget): void {
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const entryPath = [...segments, entry.name].join("/");
    const problem = entryProblem(entryPath, entryType(entry));
    if (problem) throw badRequest(`${from} cannot be imported: ${problem}`);
    const source = path.join(from, entry.name);
    const refusal = budget.add(entry.isFile() ? fs.lstatSync(source).size : 0);
    if (refusal) throw refusal;
    if (entry.isDirectory()) checkTree(source, [...segments, entry.name], budget);
  }
}

function copyTree(from: string, to: string, segments: string[]): void {
  fs.mkdirSync(to);
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const entryPath = [...segments, entry.name].join("/");
    const problem = entryProblem(entryPath, entryType(entry));
    if (problem) throw badRequest(`${from} cannot be imported: ${problem}`);
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) copyTree(source, target, [...segments, entry.name]);
    else fs.copyFileSync(source, target);
  }
}
