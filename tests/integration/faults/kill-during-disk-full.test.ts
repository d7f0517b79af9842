import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startServerProcess, type ServerProcess } from "../../support/server-process";
import { makeTempHome } from "../../support/temp-home";
import { expectWholeLines } from "./consistency";

const temp = makeTempHome();
let server: ServerProcess | null = null;

afterAll(async () => {
  await server?.stop();
  temp.cleanup();
});

interface Acknowledged {
  conversationId: string;
  endedTurns: string[];
  runningTurn: string;
  acknowledgedItems: string[];
  refusals: string[];
}

/** Runs the disk-full child until it reports, then kills it with SIGKILL. */
async function runChildAndKill(): Promise<Acknowledged> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "disk-full-child.ts")], {
    cwd: path.resolve(import.meta.dirname, "..", "..", ".."),
    env: { ...process.env, ATRIUM_HOME: temp.home },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  let errors = "";
  child.stderr!.on("data", (chunk: Buffer) => (errors += chunk.toString()));
  const line = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the child did not report within 30 s: ${errors}`)), 30_000);
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const newline = output.indexOf("\n");
      if (newline !== -1) {
        clearTimeout(timer);
        resolve(output.slice(0, newline));
      }
    });
    child.once("exit", (code) => reject(new Error(`the child exited (${code}) before reporting: ${errors}`)));
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
  return JSON.parse(line) as Acknowledged;
}

describe("kill -9 while the disk is full", () => {
  it("restarts with everything acknowledged, whole lines, the open turn closed, and new messages taken", async () => {
    const acknowledged = await runChildAndKill();
    expect(acknowledged.refusals).toEqual(["storage_full", "storage_full", "storage_full"]);
    expectWholeLines(temp.home);

    server = await startServerProcess(temp.home);
    const id = acknowledged.conversationId;
    const items = (await (await server.api(`/api/conversations/${id}/items?limit=500`)).json()).items as Array<{ id: string; text?: string }>;
    const ids = new Set(items.map((item) => item.id));
    for (const itemId of acknowledged.acknowledgedItems) expect(ids.has(itemId)).toBe(true);
    expect(items.some((item) => item.text?.includes("refused"))).toBe(false);
    for (const turnId of acknowledged.endedTurns) {
      expect((await (await server.api(`/api/turns/${turnId}`)).json()).turn.status).toBe("completed");
    }
    const open = (await (await server.api(`/api/turns/${acknowledged.runningTurn}`)).json()).turn;
    expect(open.status).toBe("interrupted");
    expect(open.error.code).toBe("server_stopped");
    const list = (await (await server.api(`/api/conversations?archived=all`)).json()).conversations as Array<{ id: string; title: string }>;
    expect(list.map((conversation) => conversation.id)).toEqual([id]);
    expect(list[0].title).not.toBe("refused title");
    expect(fs.readdirSync(path.join(temp.home, "conversations")).filter((name) => name.startsWith("."))).toEqual([]);

    const sent = await server.api(`/api/conversations/${id}/messages`, { method: "POST", body: JSON.stringify({ text: "still there?" }) });
    expect(sent.status).toBe(202);
    expectWholeLines(temp.home);
  });
});
