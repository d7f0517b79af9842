import { defineConfig } from "vitest/config";
import base from "./vitest.config";

/**
 * The single-node API suites again, each server process a one-node cluster on a real PostgreSQL
 * (tests/support/postgres-backend.ts): both backends keep one contract (issue 24).
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ["tests/integration/api/**/*.test.ts", "tests/integration/security/**/*.test.ts", "tests/integration/cli/chat.test.ts"],
    // Its subject is the files (every JSONL line parsing after kill -9); on PostgreSQL the same
    // crash is tests/integration/cluster's take-over after kill -9 (cluster-stale-owner, cluster-node).
    exclude: ["tests/integration/api/crash-recovery.test.ts"],
    globalSetup: ["tests/support/postgres-backend-setup.ts"],
  },
});
