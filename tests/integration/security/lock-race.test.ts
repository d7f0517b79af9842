import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { acquireLock, readLock, UNREADABLE_LOCK_GRACE_MS } from "@/lib/store/lock";
import { dataPaths } from "@/lib/store/paths";
import { startServerProcess, type ServerProcess } from "../../support/server-process";
import { makeTempHome } from "../../support/temp-home";

let temp: ReturnType<typeof makeTempHome>;
const servers: ServerProcess[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.stop()));
  temp?.cleanup();
});

/** A pid that belonged to a process which has exited: what a crashed holder leaves behind. */
function deadPid(): number {
  return spawnSync(process.execPath, ["-e", ""]).pid!;
}

describe("runtime.lock under a race", () => {
  it("two servers started at once on one data dir (over a crashed holder's lock): exactly one holds the lock", async () => {
    temp = makeTempHome();
    const lockPath = dataPaths(temp.home).lock;
    const stale = { pid: deadPid(), hostname: os.hostname(), bindHost: "127.0.0.1", port: 1, startedAt: new Date(0).toISOString() };
    fs.writeFileSync(lockPath, `${JSON.stringify(stale)}\n`);

    const results = await Promise.allSettled([startServerProcess(temp.home), startServerProcess(temp.home)]);
    const running = results.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
    servers.push(...running);
    const refused = results.flatMap((result) => (result.status === "rejected" ? [String(result.reason)] : []));

    expect(running).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatch(/in use by Atrium pid \d+|being written by another Atrium|another Atrium is starting/);
    expect(readLock(lockPath)?.pid).toBe(running[0].child.pid);
    expect((await running[0].api("/api/health")).status).toBe(200);
  }, 120_000);

  it("an empty lock is a holder still writing it: refused while fresh, taken over once older than the grace period", () => {
    temp = makeTempHome();
    const lockPath = dataPaths(temp.home).lock;
    fs.writeFileSync(lockPath, "");
    expect(() => acquireLock(lockPath, {}, () => undefined)).toThrow(expect.objectContaining({ code: "lock_held" }));
    expect(fs.readFileSync(lockPath, "utf8")).toBe("");

    const old = new Date(Date.now() - UNREADABLE_LOCK_GRACE_MS - 1000);
    fs.utimesSync(lockPath, old, old);
    const logs: string[] = [];
    const lock = acquireLock(lockPath, {}, (message) => logs.push(message));
    expect(readLock(lockPath)?.pid).toBe(process.pid);
    expect(logs.join("\n")).toContain("unreadable");
    lock.release();
  });

  it("leaves no temp files next to the lock", () => {
    temp = makeTempHome();
    const lockPath = dataPaths(temp.home).lock;
    const lock = acquireLock(lockPath, {}, () => undefined);
    lock.release();
    expect(fs.readdirSync(temp.home).filter((name) => name.startsWith("runtime.lock"))).toEqual([]);
  });
});
