import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JsonlAppender } from "@/lib/store/jsonl-appender";
import { FaultyStorageFs } from "@/lib/store/storage-fs";

/** Counts the writes that reach the file, and how many lines each carried. */
class CountingFs extends FaultyStorageFs {
  readonly writes: number[] = [];

  override async write(handle: fs.promises.FileHandle, filePath: string, chunk: Buffer, offset: number, length: number): Promise<number> {
    this.writes.push(chunk.subarray(offset, offset + length).toString("utf8").split("\n").filter(Boolean).length);
    return super.write(handle, filePath, chunk, offset, length);
  }
}

let directory: string;
beforeEach(() => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-appender-"));
});
afterEach(() => fs.rmSync(directory, { recursive: true, force: true }));

describe("a JSONL appender's flush", () => {
  it("starts at the end of the task that appended, before the loop's check phase: a burst of requests handled in one poll phase does not hold every record back until the burst is done", async () => {
    const disk = new CountingFs();
    const appender = await JsonlAppender.open<{ type: string }, { type: string; seq: number }>(path.join(directory, "log.jsonl"), { fs: disk });
    // Registered before the append: it runs at the check phase the old flush waited for.
    const writesAtCheckPhase = new Promise<number>((resolve) => setImmediate(() => resolve(disk.writes.length)));
    const appended = appender.append({ type: "first" });
    expect(await writesAtCheckPhase).toBe(1);
    await appended;
    await appender.close();
  });

  it("still gives the lines of one task one write, and the lines appended while a write is out the next one", async () => {
    const disk = new CountingFs();
    const file = path.join(directory, "log.jsonl");
    const appender = await JsonlAppender.open<{ type: string }, { type: string; seq: number }>(file, { fs: disk });
    const first = [appender.append({ type: "a" }), appender.append({ type: "b" })];
    // The first write is out: these wait and go together.
    await new Promise((resolve) => process.nextTick(resolve));
    const second = [appender.append({ type: "c" }), appender.append({ type: "d" }), appender.append({ type: "e" })];
    const records = await Promise.all([...first, ...second]);
    expect(disk.writes).toEqual([2, 3]);
    expect(records.map(({ record }) => record.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(fs.readFileSync(file, "utf8").trim().split("\n").map((line) => (JSON.parse(line) as { type: string }).type)).toEqual(["a", "b", "c", "d", "e"]);
    await appender.close();
  });

  it("gives one write to lines appended from one task's promise jobs, however many awaits each took to get there (the store awaits its appender first)", async () => {
    const disk = new CountingFs();
    const appender = await JsonlAppender.open<{ type: string }, { type: string; seq: number }>(path.join(directory, "log.jsonl"), { fs: disk });
    const after = async (hops: number, type: string) => {
      for (let hop = 0; hop < hops; hop += 1) await Promise.resolve();
      return appender.append({ type });
    };
    await new Promise<void>((resolve) =>
      setImmediate(() => {
        // One macrotask: every append is made by a promise job of it, after 1 to 5 hops.
        void Promise.resolve().then(() => Promise.all([after(1, "a"), after(5, "b"), after(3, "c")]).then(() => resolve()));
      }),
    );
    expect(disk.writes).toEqual([3]);
    await appender.close();
  });
});
