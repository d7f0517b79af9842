import { defineConfig } from "drizzle-kit";

/** The cluster's index tables (lib/store/postgres/index-tables.ts, derived from lib/store/schema.ts) and their full-text rows. */
export default defineConfig({
  dialect: "postgresql",
  schema: ["./lib/store/postgres/index-tables.ts", "./lib/store/postgres/search-tables.ts"],
  out: "./drizzle-postgres",
});
