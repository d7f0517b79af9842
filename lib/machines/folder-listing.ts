import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { AtriumError } from "../errors";
import { MachineDisconnectedError } from "../ports/machine-port";
import type { MachineRegistry } from "./machine-registry";
import { isWithinLexically } from "./roots";

export const folderListingSchema = z.object({
  machine: z.string(),
  path: z.string(),
  /** One level up, or null at the top (`/` here, a root on a linked machine). */
  parent: z.string().nullable(),
  folders: z.array(z.object({ name: z.string(), path: z.string() })),
  /** More entries than were listed. */
  truncated: z.boolean(),
});
export type FolderListing = z.infer<typeof folderListingSchema>;

const LISTED = 500;

/**
 * The folders in one folder of a machine, for the new-chat folder browser: on `local` read here
 * (from the server's default folder when no path is given); on a linked machine asked of the
 * machine through its link with its own list_dir (from its first root), never read from this disk.
 * Hidden folders (a leading dot) are left out: a project is rarely one.
 */
export async function listFolders(machines: MachineRegistry, machineId: string, folder: string | undefined, defaultCwd: string): Promise<FolderListing> {
  if (machines.isLocal(machineId)) return listLocal(folder ?? defaultCwd, machineId);
  const machine = machines.get(machineId);
  const wanted = path.posix.normalize(folder ?? machine.roots[0] ?? "");
  if (!path.posix.isAbsolute(wanted)) throw new AtriumError("bad_request", `path must be an absolute path on machine ${machine.name}`);
  const root = machine.roots.find((candidate) => isWithinLexically(wanted, candidate));
  if (!root) throw new AtriumError("cwd_outside_roots", `${wanted} is outside machine ${machine.name}'s roots (${machine.roots.join(", ") || "none"})`);
  const controller = new AbortController();
  const result = await machines.run(machineId, { tool: "list_dir", input: { path: wanted }, cwd: root }, { signal: controller.signal, onOutput: () => undefined }).catch((error: unknown) => {
    if (error instanceof MachineDisconnectedError) throw new AtriumError("machine_offline", `machine ${machine.name} is offline`);
    throw error;
  });
  if (result.status !== "completed") throw new AtriumError("bad_request", `machine ${machine.name} cannot list ${wanted}: ${result.output}`);
  const lines = result.output.split("\n");
  const names = lines.filter((line) => line.endsWith("/") && !line.startsWith(".")).map((line) => line.slice(0, -1));
  return {
    machine: machineId,
    path: wanted,
    parent: wanted === root ? null : path.posix.dirname(wanted),
    folders: names.slice(0, LISTED).map((name) => ({ name, path: path.posix.join(wanted, name) })),
    truncated: names.length > LISTED || lines.some((line) => /^\[\d+ more entries not listed\]$/.test(line)),
  };
}

function listLocal(folder: string, machineId: string): FolderListing {
  if (!path.isAbsolute(folder)) throw new AtriumError("bad_request", "path must be an absolute path");
  const resolved = path.resolve(folder);
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(resolved, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new AtriumError("missing_cwd", `no folder at ${resolved}`);
    if (code === "ENOTDIR") throw new AtriumError("bad_request", `${resolved} is a file, not a folder`);
    throw new AtriumError("bad_request", `${resolved} cannot be read (${code ?? "error"})`);
  }
  const names = entries
    .filter((entry) => !entry.name.startsWith(".") && (entry.isDirectory() || (entry.isSymbolicLink() && isDirectory(path.join(resolved, entry.name)))))
    .map((entry) => entry.name)
    .sort((left, right) => (left < right ? -1 : left > right ? 1 : 0));
  const parent = path.dirname(resolved);
  return {
    machine: machineId,
    path: resolved,
    parent: parent === resolved ? null : parent,
    folders: names.slice(0, LISTED).map((name) => ({ name, path: path.join(resolved, name) })),
    truncated: names.length > LISTED,
  };
}

function isDirectory(target: string): boolean {
  try {
    return fs.statSync(target).isDirectory();
  } catch {
    return false;
  }
}
