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

/**
 * The env that makes a server process a one-node cluster, or {} on the files backend. Its
 * database is its data directory's: a server restarted on the same home finds its conversations.
 */
export async function backendEnv(home: string): Promise<Record<string, string>> {
  const admin = process.env[POSTGRES_BACKEND_URL_ENV];
  if (!admin) return {};
  const name = `atrium_${crypto.createHash("sha256").update(home).digest("hex").slice(0, 16)}`;
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
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return { ATRIUM_DATABASE_URL: url.toString(), ATRIUM_CLUSTER_SECRET: CLUSTER_SECRET };
}
