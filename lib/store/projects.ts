import fs from "node:fs";
import path from "node:path";
import { and, desc, eq, max, sql } from "drizzle-orm";
import { z } from "zod";
import type { IndexDatabase } from "./database";
import * as tables from "./schema";

/** A project is a folder on a machine (DESIGN §9); its recency is that of the newest conversation held there. */
export const projectSchema = z.object({
  machine: z.string(),
  path: z.string(),
  name: z.string(),
  lastUsedAt: z.string(),
});
export type Project = z.infer<typeof projectSchema>;

export const RECENT_PROJECTS_LIMIT = 20;

/** The folders conversations were held in, the most recently used first (archived conversations count too). */
export function recentProjects(db: IndexDatabase, filter: { machine?: string; agent?: string; limit?: number } = {}): Project[] {
  const lastUsedAt = max(tables.conversations.updatedAt);
  const conditions = [
    ...(filter.machine === undefined ? [] : [eq(tables.conversations.executor, filter.machine)]),
    ...(filter.agent === undefined ? [] : [eq(tables.conversations.agent, filter.agent)]),
  ];
  const query = db
    .select({ machine: tables.conversations.executor, path: tables.conversations.cwd, lastUsedAt })
    .from(tables.conversations)
    .where(conditions.length === 0 ? sql`1 = 1` : and(...conditions))
    .groupBy(tables.conversations.executor, tables.conversations.cwd)
    .orderBy(desc(lastUsedAt), tables.conversations.cwd, tables.conversations.executor)
    .limit(filter.limit ?? RECENT_PROJECTS_LIMIT);
  return query.all().map(toProject);
}

export function toProject(row: { machine: string; path: string; lastUsedAt: string | null }): Project {
  return { machine: row.machine, path: row.path, name: path.basename(row.path) || row.path, lastUsedAt: row.lastUsedAt ?? "" };
}

/**
 * The projects a new chat may start in: a folder on the server's own machine that is gone
 * (deleted since its conversations ran there) is left out, so it never becomes the default.
 * Folders on linked machines are checked there when picked, not here.
 */
export function projectsStillThere(projects: readonly Project[], exists: (folder: string) => boolean = isDirectory): Project[] {
  return projects.filter((project) => project.machine !== "local" || exists(project.path));
}

function isDirectory(folder: string): boolean {
  try {
    return fs.statSync(folder, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch {
    // ENOTDIR (a parent became a file), EACCES, ENAMETOOLONG: not a folder a chat can start in.
    return false;
  }
}
