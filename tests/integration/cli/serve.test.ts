import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTempHome } from "../../support/temp-home";
import { runAtrium } from "./run-atrium";

const REPO_ROOT = path.resolve(import.meta.dirname, "../../..");
const FIXTURE = path.join(import.meta.dirname, "fixtures", "serve-with-project-root.ts");

/** Stands in for the real server.ts: takes the lock like it, and says when it listens and closes. */
const standInServer = `
import path from "node:path";
import { acquireLock } from ${JSON.stringify(pathToFileURL(path.join(REPO_ROOT, "lib/store/lock.ts")).href)};
export async function startServer(options) {
  const lock = acquireLock(path.join(options.home, "runtime.lock"), { bindHost: options.host, port: options.port });
  const listening = setInterval(() => {}, 60_000); // stands in for the listening socket that keeps the process up
  process.stdout.write(\`listening \${options.host}:\${options.port} dev=\${options.dev} NODE_ENV=\${process.env.NODE_ENV}\\n\`);
  const close = async () => {
    clearInterval(listening);
    lock.release();
    process.stdout.write("closed\\n");
  };
  return { url: \`http://\${options.host}:\${options.port}/\`, close };
}
`;

describe("atrium serve", () => {
  let home: ReturnType<typeof makeTempHome>;
  let projectRoot: ReturnType<typeof makeTempHome>;
  beforeEach(() => {
    home = makeTempHome("atrium-serve-");
    projectRoot = makeTempHome("atrium-project-");
    fs.writeFileSync(path.join(projectRoot.home, "server.ts"), standInServer);
    // A build is present, so --build-if-missing has nothing to do.
    fs.mkdirSync(path.join(projectRoot.home, ".next"));
    fs.writeFileSync(path.join(projectRoot.home, ".next", "BUILD_ID"), "test\n");
  });
  afterEach(() => {
    home.cleanup();
    projectRoot.cleanup();
  });

  it("starts the server from HOST and PORT, and `serve stop` closes it cleanly", async () => {
    // Without NODE_ENV, as `npm start` runs it: serve must choose production itself.
    const { NODE_ENV: _unset, ...inherited } = process.env;
    const env: Record<string, string | undefined> = { ...inherited, ATRIUM_HOME: home.home, HOST: "127.0.0.9", PORT: "4567" };
    const server = spawn(process.execPath, ["--import", "tsx", FIXTURE, projectRoot.home, "--build-if-missing"], {
      cwd: REPO_ROOT,
      env: env as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    server.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => server.once("exit", (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the server did not start: ${stdout}${stderr}`)), 20_000);
      server.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes("listening")) {
          clearTimeout(timer);
          resolve();
        }
      });
      server.once("exit", () => reject(new Error(`the server exited: ${stdout}${stderr}`)));
    });
    expect(stdout).toContain("listening 127.0.0.9:4567 dev=false NODE_ENV=production");

    const stop = await runAtrium(["serve", "stop"], { home: home.home });
    expect(stop.stderr).toBe("");
    expect(stop.stdout).toContain(`Atrium pid ${server.pid} stopped.`);
    expect(stop.status).toBe(0);
    expect(await exited).toBe(0);
    expect(stdout).toContain("Stopping Atrium (SIGTERM)…\nclosed\nAtrium stopped.");
    expect(fs.existsSync(path.join(home.home, "runtime.lock"))).toBe(false);
  });
});
