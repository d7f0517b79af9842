import fs from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AtriumError } from "@/lib/errors";
import { acquireLock, readLock } from "@/lib/store/lock";
import { dataPaths } from "@/lib/store/paths";
import { makeTempHome } from "../../support/temp-home";
import { spawnLockHolder, type LockHolder } from "./lock-holder";

describe("runtime.lock held by another process", () => {
  let temp: ReturnType<typeof makeTempHome>;
  let holder: LockHolder | null = null;
  beforeEach(() => {
    temp = makeTempHome();
  });
  afterEach(async () => {
    await holder?.kill();
    holder = null;
    temp.cleanup();
  });

  it("refuses while the holder lives, naming its pid; takes over the stale lock once it is gone, and logs it", async () => {
    const lockPath = dataPaths(temp.home).lock;
    holder = await spawnLockHolder(lockPath);
    expect(readLock(lockPath)).toMatchObject({ pid: holder.pid, bindHost: "127.0.0.1", port: 4321 });

    const logs: string[] = [];
    let refusal: unknown;
    try {
      acquireLock(lockPath, {}, (message) => logs.push(message));
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(AtriumError);
    expect(refusal).toMatchObject({ code: "lock_held" });
    expect((refusal as Error).message).toContain(`pid ${holder.pid}`);
    expect(readLock(lockPath)?.pid).toBe(holder.pid);

    // SIGKILL: the holder gets no chance to remove its lock, as in a crash.
    const stalePid = holder.pid;
    await holder.kill("SIGKILL");
    expect(fs.existsSync(lockPath)).toBe(true);

    const lock = acquireLock(lockPath, { bindHost: "127.0.0.1", port: 3000 }, (message) => logs.push(message));
    expect(logs).toEqual([`Taking over a stale runtime.lock left by pid ${stalePid} (no longer running)`]);
    expect(readLock(lockPath)).toMatchObject({ pid: process.pid, port: 3000 });
    lock.release();
    expect(fs.existsSync(lockPath)).toBe(false);
  });
});
