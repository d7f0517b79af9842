import { parseArgs } from "node:util";
import { migrateSharedState, type SharedStateReport } from "../cluster/migrate-shared";
import { acquireLock } from "../store/lock";
import { migrateToCluster, type MigrationProgress, type MigrationReport } from "../store/postgres/migration";
import { ensurePostgresSchema } from "../store/postgres/schema";
import { dataPaths } from "../store/paths";
import { ensureHome, UsageError, type CliContext } from "./cli-context";
import { EXIT_DONE, EXIT_FAILED, EXIT_REFUSED } from "./exit-status";
import { databasePool } from "../store/postgres/database-json";

/**
 * `atrium migrate --to postgres://…` (DESIGN §10c): copies this data directory's conversations into
 * a cluster's database, holding the data directory's lock (a running server must stop first, so
 * the copy is of files nobody is writing). Run it again to copy what was added since, or to finish
 * a run that was cut off. Exit 0 when every conversation is in the cluster (or skipped: deleted),
 * 3 when one was refused (it differs from the cluster's, or a node is using it), 1 when one failed.
 */
export async function runMigrate(args: string[], context: CliContext): Promise<number> {
  const { values } = parseArgs({ args, options: { to: { type: "string" } }, allowPositionals: false, strict: true });
  const url = databaseUrl(values.to);
  ensureHome(context);
  const lock = acquireLock(dataPaths(context.home).lock, {}, context.warn);
  const pool = databasePool(url, 2, (error) => context.warn(`a database connection failed: ${error.message}`));
  try {
    context.print(`Copying ${context.home} into ${redacted(url)}…`);
    await ensurePostgresSchema(pool).catch((error: unknown) => {
      throw new Error(`could not use the database at ${redacted(url)}: ${error instanceof Error ? error.message : String(error)}`);
    });
    const report = await migrateToCluster(context.home, pool, (progress) => context.print(describe(progress)));
    context.print(summary(report));
    const shared = await migrateSharedState(dataPaths(context.home), pool);
    for (const line of describeShared(shared)) context.print(line);
    if (report.failed.length > 0) return EXIT_FAILED;
    return report.refused.length + shared.machines.refused.length > 0 ? EXIT_REFUSED : EXIT_DONE;
  } finally {
    await pool.end().catch(() => undefined);
    lock.release();
  }
}

function databaseUrl(value: string | undefined): string {
  if (!value) throw new UsageError("missing --to postgres://user:password@host:port/database");
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--to "${redacted(value)}" is not a URL (postgres://user:password@host:port/database)`);
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") throw new UsageError(`--to must be a postgres:// URL, not ${url.protocol}//…`);
  return value;
}

/** The URL without its password, for messages. */
function redacted(value: string): string {
  try {
    const url = new URL(value);
    if (url.password) url.password = "***";
    return url.toString();
  } catch {
    return "(the given URL)";
  }
}

function describe({ done, total, conversationId, title, outcome }: MigrationProgress): string {
  const name = title ? `${conversationId} "${title}"` : conversationId;
  const at = `[${done}/${total}]`;
  switch (outcome.status) {
    case "copied":
      return `${at} Copied ${name}: ${plural(outcome.records, "record")}, ${plural(outcome.files, "file")} (${kib(outcome.bytes)})`;
    case "up_to_date":
      return `${at} Already in the cluster: ${name}`;
    case "skipped":
      return `${at} Skipped ${name}: ${outcome.reason}`;
    case "refused":
      return `${at} Refused ${name}: ${outcome.reason}`;
    case "failed":
      return `${at} Failed ${name}: ${outcome.reason}`;
  }
}

function summary(report: MigrationReport): string {
  const parts = [
    `copied ${plural(report.copied, "conversation")} (${plural(report.records, "record")}, ${plural(report.files, "file")}, ${kib(report.bytes)})`,
    `${report.upToDate} already there`,
    `${report.skipped.length} skipped`,
    `${report.refused.length} refused`,
    `${report.failed.length} failed`,
  ];
  const again = report.refused.length + report.failed.length > 0 ? " Run it again once the refused or failed ones are dealt with; what is copied stays." : "";
  return `Migrated ${report.total} conversations in ${report.milliseconds} ms: ${parts.join(", ")}.${again}`;
}

function describeShared({ machines, sessions, approvalRules }: SharedStateReport): string[] {
  const names = (list: string[]) => (list.length > 0 ? `: ${list.join(", ")}` : "");
  return [
    ...machines.refused.map(({ name, reason }) => `Refused machine "${name}": ${reason}`),
    `Machines: copied ${machines.copied.length}${names(machines.copied)}; ${machines.alreadyThere.length} already there; ${machines.refused.length} refused.`,
    `Browser sessions: copied ${sessions.copied}; ${sessions.alreadyThere} already there.`,
    `"Always allow" rules: copied ${approvalRules.copied}; ${approvalRules.alreadyThere} already there.`,
  ];
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`;
const kib = (bytes: number) => (bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`);
