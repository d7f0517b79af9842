import type pg from "pg";
import { afterAll, beforeAll, expect } from "vitest";
import { isAlive } from "./process-group";
import { startTestPostgres, type TestPostgres } from "./test-postgres";

export { startTestPostgres, type TestPostgres };

/**
 * One PostgreSQL for the calling test file: started before its tests, stopped after them with
 * a check that the server process is gone. Read `postgres` and `pool` inside the tests.
 */
export function usePostgresPerFile(): { readonly postgres: TestPostgres; readonly pool: pg.Pool } {
  let postgres: TestPostgres | undefined;
  let pool: pg.Pool | undefined;
  beforeAll(async () => {
    postgres = await startTestPostgres();
    pool = postgres.pool();
  });
  afterAll(async () => {
    if (!postgres) return;
    const pid = postgres.pid;
    await postgres.stop();
    expect(isAlive(pid)).toBe(false);
  });
  return {
    get postgres() {
      if (!postgres) throw new Error("PostgreSQL is not started yet: read it inside a test");
      return postgres;
    },
    get pool() {
      if (!pool) throw new Error("PostgreSQL is not started yet: read it inside a test");
      return pool;
    },
  };
}

/**
 * Pauses every node's listening connection (SIGSTOP of its PostgreSQL backend): no notice reaches
 * any node until the returned function lets them run again, so a node knows only what it reads.
 */
export async function pauseListeners(pool: pg.Pool): Promise<() => void> {
  const listeners = await pool.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE query LIKE 'LISTEN %' AND pid <> pg_backend_pid()");
  expect(listeners.rows.length).toBeGreaterThanOrEqual(2);
  for (const row of listeners.rows) process.kill(row.pid, "SIGSTOP");
  return () => {
    for (const row of listeners.rows) process.kill(row.pid, "SIGCONT");
  };
}
