import crypto from "node:crypto";
import pg from "pg";

/**
 * The single-node suites on the PostgreSQL backend (issue 24: "run the existing single-node suites
 * against the PostgreSQL backend too, so both backends keep one contract"). Under
 * `vitest.postgres.config.ts` a global setup starts one real PostgreSQL and names it in
 * ATRIUM_TEST_POSTGRES_URL; every server process a test starts then gets a database of its own
 * on it, and runs as a one-node cluster on it.
 */
export const POSTGRES_BACKEND_URL_ENV = "ATRIUM_TEST_POSTGRES_URL";
const CLUSTER_SECRET = "single-node-suite-secret-0123456789abcdef";

/** Whether this run's servers are one-node clusters on PostgreSQL (else: the files backend). */
export function onPostgresBackend(): boolean {
  return Boolean(process.env[POSTGRES_BACKEND_URL_ENV]);
}

const databaseName = (home: string) => `atrium_${crypto.createHash("sha256").update(home).digest("hex").slice(0, 16)}`;

/** The database a server on `home` uses on the PostgreSQL backend. */
export function backendDatabaseUrl(home: string): string {
  const url = new URL(process.env[POSTGRES_BACKEND_URL_ENV]!);
  url.pathname = `/${databaseName(home)}`;
  return url.toString();
}

/**
 * The env that makes a server process a one-node cluster, or {} on the files backend. Its
 * database is its data directory's: a server restarted on the same home finds its conversations.
 */
export async function backendEnv(home: string): Promise<Record<string, string>> {
  const admin = process.env[POSTGRES_BACKEND_URL_ENV];
  if (!admin) return {};
  const name = databaseName(home);
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    // Two servers started at once on one home both get here: one creates it, the other finds it made.
    if (found.rowCount === 0) await client.query(`CREATE DATABASE ${name}`).catch((error: { code?: string }) => {
      if (error.code !== "42P04" && error.code !== "23505") throw error;
    });
  } finally {
    await client.end();
  }
  return { ATRIUM_DATABASE_URL: backendDatabaseUrl(home), ATRIUM_CLUSTER_SECRET: CLUSTER_SECRET };
}
