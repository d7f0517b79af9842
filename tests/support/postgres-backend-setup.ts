import { POSTGRES_BACKEND_URL_ENV } from "./postgres-backend";
import { startTestPostgres } from "./test-postgres";

/** Global setup of vitest.postgres.config.ts: one real PostgreSQL for the whole run. */
export default async function setup(): Promise<() => Promise<void>> {
  const postgres = await startTestPostgres();
  process.env[POSTGRES_BACKEND_URL_ENV] = postgres.url;
  return () => postgres.stop();
}
