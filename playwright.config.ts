import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";
import { E2E_PORT, E2E_TOKEN } from "./tests/e2e/support/environment";

/**
 * Browser tests run against the real custom server (one process, production build) on a
 * fresh ATRIUM_HOME. The directory is made once in the runner; workers inherit the env.
 */
if (!process.env.ATRIUM_E2E_HOME) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-e2e-"));
  // Outside the data directory: the files server runs sandboxed, and $ATRIUM_HOME is hidden from it.
  const notes = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-e2e-notes-"));
  fs.writeFileSync(
    path.join(home, "config.json"),
    JSON.stringify({
      // Short, real retry waits so the retry notice can be watched counting down.
      retry: { baseDelayMs: 2000, maxDelayMs: 4000, maxRetries: 2 },
      // Settings → Tools shows one connected MCP server (the real server-filesystem) and one that fails to start.
      mcpServers: {
        files: { command: process.execPath, args: [path.resolve("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"), notes], sandbox: { writable: [notes] } },
        broken: { command: process.execPath, args: ["-e", "console.error('broken on purpose'); process.exit(1)"] },
        // Configured for a machine no spec adds: listed "on workbench", failed until it links (DESIGN §10b).
        remote: { command: process.execPath, args: ["-e", "process.exit(0)"], machine: "workbench" },
      },
    }),
  );
  // Settings → Agents lists a home agent with its file, model and tools.
  fs.mkdirSync(path.join(home, "agents"));
  fs.writeFileSync(path.join(home, "agents", "reviewer.md"), "---\nname: reviewer\ndescription: Reads and reviews, changes nothing.\nmodel: offline\ntools: [read_file, grep]\n---\nReview the code you are shown.\n");
  process.env.ATRIUM_E2E_HOME = home;
}

const baseURL = `http://127.0.0.1:${E2E_PORT}`;

export default defineConfig({
  testDir: "tests/e2e",
  testMatch: "**/*.spec.ts",
  fullyParallel: false,
  // Each test drives a real server and browser on a 2-core machine: one at a time keeps timings honest.
  workers: 1,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  timeout: 120_000,
  expect: { timeout: 20_000 },
  reporter: process.env.CI ? [["list"]] : [["list"], ["html", { open: "never", outputFolder: "playwright-report" }]],
  outputDir: "test-results",
  use: {
    baseURL,
    viewport: { width: 1280, height: 800 },
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: "/usr/bin/chromium",
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
  projects: [{ name: "chromium", use: { browserName: "chromium" } }],
  webServer: {
    command: "node --import tsx server.ts",
    url: `${baseURL}/api/health`,
    // /api/health answers 401 without a token, which still means the server is up.
    ignoreHTTPSErrors: true,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: "pipe",
    stderr: "pipe",
    env: {
      ATRIUM_HOME: process.env.ATRIUM_E2E_HOME,
      ATRIUM_TOKEN: E2E_TOKEN,
      PORT: String(E2E_PORT),
      HOST: "127.0.0.1",
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
    },
  },
});
