import { defineConfig } from "drizzle-kit";

/** The cluster's index tables (lib/store/postgres/index-tables.ts, derived from lib/store/schema.ts). */
export default defineConfig({
  dialect: "postgresql",
  schema: "./lib/store/postgres/index-tables.ts",
  out: "./drizzle-postgres",
});
