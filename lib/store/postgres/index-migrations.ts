import path from "node:path";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import type { PoolClient } from "pg";
import { PG_INDEX_PREFIX } from "./index-tables";

/** drizzle-kit's migrations of the cluster's index tables (`npx drizzle-kit generate --config drizzle.postgres.config.ts`). */
const MIGRATIONS = path.join(import.meta.dirname ?? process.cwd(), "..", "..", "..", "drizzle-postgres");

/** Where drizzle keeps the migrations it has applied: beside the tables, not in a schema of its own. */
export const PG_INDEX_MIGRATIONS_TABLE = `${PG_INDEX_PREFIX}migrations`;

/**
 * Applies the index tables' migrations not yet applied (each in the one transaction drizzle's
 * migrator runs them in), on the connection that holds the schema's advisory lock, so two nodes
 * starting at once do not both apply them.
 */
export async function migratePostgresIndex(client: PoolClient, migrationsFolder = MIGRATIONS): Promise<void> {
  await migrate(drizzle({ client }), { migrationsFolder, migrationsTable: PG_INDEX_MIGRATIONS_TABLE, migrationsSchema: "public" });
}
