import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FaultyStorageFs } from "@/lib/store/storage-fs";
import { startHarness, type Harness } from "../../support/runtime-harness";
import { pollUntil } from "../../support/poll";

/**
 * Issue 25: a subagent's first turn starts its loop as soon as its task message is flushed. When
 * the disk then refuses that turn's `turn.started`, nothing of the child's turn but the task is
 * written, nothing of it is told, and the conversation goes on.
 */
class RefuseChildStartFs extends FaultyStorageFs {
  rootSessionFile = "";
  private armed = false;
  childWrites = 0;

  override async write(handle: fs.promises.FileHandle, filePath: string, chunk: Buffer, offset: number, length: number): Promise<number> {
    const base = path.basename(filePath);
    if (this.rootSessionFile && base.endsWith(".jsonl") && base !== "metadata.jsonl" && base !== this.rootSessionFile && !this.armed && this.childWrites === 0) {
      // The child's task message: the next metadata write after it (queue.removed or turn.started) is refused.
      this.childWrites += 1;
      this.armed = true;
      this.inject({ operation: "write", code: "ENOSPC", pathIncludes: "metadata.jsonl", times: 1 });
    }
    return super.write(handle, filePath, chunk, offset, length);
  }
}

let harness: Harness;
afterEach(async () => harness?.close());

function lines(file: string): Array<{ type: string; turnId?: string; sessionId?: string; item?: { turnId?: string; kind?: string } }> {
  return fs.readFileSync(file, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line) as { type: string });
}

describe("a subagent's turn start refused by the disk", () => {
  it("leaves only the child's task on disk, tells nothing of its turn, and the conversation goes on", async () => {
    const disk = new RefuseChildStartFs();
    harness = await startHarness({}, undefined, { fs: disk });
    const created = await harness.runtime.createConversation({ text: "first" });
    const id = created.conversation.id;
    await harness.turnEnded(id, created.turn.id);
    disk.rootSessionFile = `${created.conversation.rootSessionId}.jsonl`;
    const sent = await harness.runtime.sendMessage(id, { text: `[[tool:spawn_agent ${JSON.stringify({ task: "child task" })}]]`, mode: "auto" });
    const ended = await harness.turnEnded(id, sent.turn!.id);
    expect(disk.fired).toBe(1);
    const directory = path.join(harness.home, "conversations", id);
    const children = fs.readdirSync(directory).filter((name) => name.endsWith(".jsonl") && name !== "metadata.jsonl" && name !== disk.rootSessionFile);
    const childTurns = children.flatMap((name) => lines(path.join(directory, name)).map((record) => record.item?.turnId)).filter(Boolean) as string[];
    const metadata = lines(path.join(directory, "metadata.jsonl"));
    // The child's turn never started: no record and no event of it but its task.
    expect(children).toHaveLength(1);
    expect(new Set(childTurns).size).toBe(1);
    for (const turnId of new Set(childTurns)) {
      expect(metadata.filter((record) => record.turnId === turnId)).toEqual([]);
      expect(harness.log.filter(({ event }) => "turnId" in event && event.turnId === turnId && event.type !== "item.created").map(({ event }) => event.type)).toEqual([]);
    }
    // The parent's spawn_agent call fails with the disk's own words, and the parent's turn goes on to its answer.
    expect(ended.status).toBe("completed");
    const spawn = harness.runtime.listItems(id, {}).items.find((item) => item.turnId === sent.turn!.id && item.kind === "tool_call")!;
    expect({ status: spawn.status, output: spawn.output }).toMatchObject({ status: "failed", output: expect.stringContaining("disk is full") });
    await pollUntil(() => !harness.runtime.actor(id).hasOpenTurn(), { what: "no turn left open" });
    const next = await harness.runtime.sendMessage(id, { text: "after", mode: "auto" });
    expect((await harness.turnEnded(id, next.turn!.id)).status).toBe("completed");
  });
});
