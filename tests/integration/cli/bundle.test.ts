import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error -- plain JavaScript (it runs before tsx is loaded), without type declarations
import { bundle } from "../../../bin/bundle.mjs";
import { indexTemplateName, openIndex } from "@/lib/store/database";
import { makeTempHome } from "../../support/temp-home";
import { waitUntil } from "../../support/wait-until";

const BUNDLE_TOKEN = "bundle-token-0123456789-abcdefghijklmn";
import { runAtrium } from "./run-atrium";

const REPO_ROOT = path.resolve(import.meta.dirname, "../../..");
const BUNDLED = path.join(REPO_ROOT, "dist", "atrium.mjs");

describe("the bundled atrium (dist/)", () => {
  const temp = makeTempHome("atrium-bundle-");
  beforeAll(async () => {
    // The bundle as `npm run build` writes it, so this file tests the current sources.
    await bundle();
  }, 60_000); // esbuild takes about a second, far more while the 2-core machine runs other builds

  afterAll(() => temp.cleanup());

  it("answers like the TypeScript sources run through tsx", async () => {
    for (const args of [["help"], ["frobnicate"], ["export"], ["serve", "--port", "http"], ["token"]]) {
      const [fromSource, fromBundle] = await Promise.all([runAtrium(args, { home: temp.home }), runAtrium(args, { home: temp.home, bundled: true })]);
      expect({ args, status: fromBundle.status, stdout: fromBundle.stdout, stderr: fromBundle.stderr }).toEqual({
        args,
        status: fromSource.status,
        stdout: fromSource.stdout,
        stderr: fromSource.stderr,
      });
    }
  });

  it("leaves beside it the empty migrated index a new data directory's index is copied from", () => {
    const dist = path.dirname(BUNDLED);
    const templates = fs.readdirSync(dist).filter((name) => name.startsWith("index-template-"));
    expect(templates).toHaveLength(1);
    const home = makeTempHome("atrium-bundle-index-");
    try {
      const index = openIndex(path.join(home.home, "metadata.db"), { templateFolder: dist });
      const version = index.$client.pragma("user_version", { simple: true }) as number;
      index.$client.close();
      expect(templates[0]).toBe(indexTemplateName(version));
    } finally {
      home.cleanup();
    }
  });

  it("serves the app (migrations and the Next build found from dist/), runs a turn (the lazily loaded AI SDK), and stops on SIGTERM", async () => {
    const home = makeTempHome("atrium-bundle-serve-");
    try {
      // Without NODE_ENV, as `npm start` runs it.
      const env: Record<string, string | undefined> = { ...process.env, ATRIUM_HOME: home.home, ATRIUM_TOKEN: BUNDLE_TOKEN, NEXT_TELEMETRY_DISABLED: "1" };
      delete env.NODE_ENV;
      const child = spawn(process.execPath, [BUNDLED, "serve", "--port", "0"], {
        cwd: REPO_ROOT,
        env: env as NodeJS.ProcessEnv,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on("data", (chunk: Buffer) => {
          output += chunk.toString();
          const match = /Atrium is running at (http:\/\/\S+)/.exec(output);
          if (match) resolve(match[1]);
        });
        void exited.then((code) => reject(new Error(`exited with ${code}:\n${output}`)));
      });
      const headers = { authorization: `Bearer ${BUNDLE_TOKEN}` };
      const conversations = await fetch(`${url}/api/conversations`, { headers });
      expect(conversations.status).toBe(200);
      expect(await conversations.json()).toMatchObject({ conversations: [] });
      const created = await fetch(`${url}/api/conversations`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify({ text: "hello from the bundle", cwd: home.home }),
      });
      expect(created.status).toBe(201);
      const { conversation } = (await created.json()) as { conversation: { id: string } };
      await waitUntil(async () => {
        const answer = await fetch(`${url}/api/conversations/${conversation.id}/items`, { headers });
        return JSON.stringify(await answer.json()).includes("You said: hello from the bundle");
      }, "the offline model's reply");
      const page = await fetch(`${url}/signin`);
      expect(page.status).toBe(200);
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
      expect(output).toContain("Atrium stopped.");
    } finally {
      home.cleanup();
    }
  });
});
