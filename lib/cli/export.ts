import path from "node:path";
import { parseArgs } from "node:util";
import { exportConversation, type ExportOptions, type ExportResult } from "../store/export-import";
import { conversationIdArgument, onePositional, type CliContext } from "./cli-context";
import { EXIT_DONE } from "./exit-status";

/**
 * `atrium export <id> [--with-ancestors] [-o file]`: needs no lock, so it works while the server
 * runs. With ATRIUM_DATABASE_URL set (a cluster node) the conversation is read from the cluster.
 */
export async function runExport(args: string[], context: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      "with-ancestors": { type: "boolean" },
      output: { type: "string", short: "o" },
    },
    allowPositionals: true,
    strict: true,
  });
  const conversationId = conversationIdArgument(onePositional(positionals, "id"));
  const output = path.resolve(context.cwd, values.output ?? `${conversationId}.tar.gz`);
  const options = { withAncestors: values["with-ancestors"] ?? false, output };
  const databaseUrl = context.env.ATRIUM_DATABASE_URL;
  const result = databaseUrl ? await exportFromDatabase(databaseUrl, conversationId, options) : await exportConversation(context.home, conversationId, options);
  const ancestors = result.conversationIds.slice(1);
  context.print(`Exported ${conversationId} to ${result.file}`);
  if (ancestors.length > 0) context.print(`With its ancestors: ${ancestors.join(", ")}`);
  for (const missing of result.missingAncestors) {
    context.warn(`The parent conversation ${missing} is not ${databaseUrl ? "in the cluster" : "on this machine"}; the export does not include it.`);
  }
  return EXIT_DONE;
}

/** A cluster node (ATRIUM_DATABASE_URL, DESIGN §10c) exports from the database: the same bundle. */
async function exportFromDatabase(databaseUrl: string, conversationId: string, options: ExportOptions): Promise<ExportResult> {
  const [{ exportFromCluster }, { databasePool }] = await Promise.all([import("../store/postgres/cluster-export"), import("../store/postgres/database-json")]);
  const pool = databasePool(databaseUrl, 2, () => undefined);
  try {
    return await exportFromCluster(pool, conversationId, options);
  } finally {
    await pool.end().catch(() => undefined);
  }
}
