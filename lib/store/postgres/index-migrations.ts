import path from "node:path";
import { readMigrationFiles } from "drizzle-orm/migrator";
import type { PoolClient } from "pg";
import { PG_INDEX_PREFIX } from "./index-tables";

/** drizzle-kit's migrations of the cluster's index tables (`npm run db:generate`, drizzle.postgres.config.ts). */
const MIGRATIONS = path.join(import.meta.dirname ?? process.cwd(), "..", "..", "..", "drizzle-postgres");

/** The migrations applied, in drizzle's own format (id, hash, created_at = the migration's folderMillis), beside the tables. */
export const PG_INDEX_MIGRATIONS_TABLE = `${PG_INDEX_PREFIX}migrations`;

/**
 * Applies the index tables' migrations not applied yet, all in one transaction, on the connection
 * that holds the schema's advisory lock (two nodes starting at once do not both apply them).
 *
 * drizzle's own migrator is not used: it first runs `CREATE SCHEMA IF NOT EXISTS`, which
 * PostgreSQL refuses to a role without CREATE on the whole database even when the schema exists,
 * and a role that may only create tables in its schema runs a cluster today. The files, the
 * table and the rule (apply those newer than the last one applied) are drizzle's.
 */
export async function migratePostgresIndex(client: PoolClient, migrationsFolder = MIGRATIONS): Promise<void> {
  const migrations = readMigrationFiles({ migrationsFolder });
  await client.query(`CREATE TABLE IF NOT EXISTS ${PG_INDEX_MIGRATIONS_TABLE} (id serial PRIMARY KEY, hash text NOT NULL, created_at bigint)`);
  const last = await client.query<{ created_at: string }>(`SELECT created_at FROM ${PG_INDEX_MIGRATIONS_TABLE} ORDER BY created_at DESC LIMIT 1`);
  const lastApplied = last.rows.length > 0 ? Number(last.rows[0]!.created_at) : Number.NEGATIVE_INFINITY;
  const fresh = migrations.filter((migration) => migration.folderMillis > lastApplied);
  if (fresh.length === 0) return;
  await client.query("BEGIN");
  try {
    for (const migration of fresh) {
      for (const statement of migration.sql) if (statement.trim() !== "") await client.query(statement);
      await client.query(`INSERT INTO ${PG_INDEX_MIGRATIONS_TABLE} (hash, created_at) VALUES ($1, $2)`, [migration.hash, migration.folderMillis]);
    }
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}
