import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { runAtrium } from "../cli/run-atrium";
import { startServerProcess } from "../../support/server-process";
import { makeTempHome } from "../../support/temp-home";

/** DESIGN §10, issue 21 finding 10: an ATRIUM_TOKEN shorter than 32 characters is refused at start. */
describe("ATRIUM_TOKEN length", () => {
  it("`atrium serve` exits 1 with a clear message and leaves no lock behind", async () => {
    const temp = makeTempHome();
    try {
      const run = await runAtrium(["serve", "--port", "0"], { home: temp.home, env: { ATRIUM_TOKEN: "a".repeat(31) } });
      expect(run.status).toBe(1);
      expect(run.stderr + run.stdout).toContain("ATRIUM_TOKEN is 31 characters long; it must be at least 32");
      expect(fs.existsSync(`${temp.home}/runtime.lock`)).toBe(false);
    } finally {
      temp.cleanup();
    }
  });

  it("server.ts refuses a short token and accepts one of 32 characters", async () => {
    const temp = makeTempHome();
    try {
      await expect(startServerProcess(temp.home, { ATRIUM_TOKEN: "short-token" })).rejects.toThrow(/exited with 1[\s\S]*ATRIUM_TOKEN is 11 characters long/);
      const server = await startServerProcess(temp.home, { ATRIUM_TOKEN: "b".repeat(32) });
      try {
        expect((await server.api("/api/health")).status).toBe(200);
      } finally {
        await server.stop();
      }
    } finally {
      temp.cleanup();
    }
  });
});
