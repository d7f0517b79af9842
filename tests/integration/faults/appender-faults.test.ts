import fs from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isAtriumError } from "@/lib/errors";
import { FaultyStorageFs } from "@/lib/store/storage-fs";
import { Store } from "@/lib/store/store";
import { makeTempHome } from "../../support/temp-home";
import { createConversation } from "../store/conversation-fixtures";

function lines(filePath: string): Array<{ seq: number; type: string }> {
  const text = fs.readFileSync(filePath, "utf8");
  expect(text.endsWith("\n")).toBe(true);
  return text.trimEnd().split("\n").map((line) => JSON.parse(line) as { seq: number; type: string });
}

describe("the JSONL appender under storage faults", () => {
  let temp: ReturnType<typeof makeTempHome>;
  let faults: FaultyStorageFs;
  let store: Store;
  beforeEach(() => {
    temp = makeTempHome();
    faults = new FaultyStorageFs();
    store = new Store(temp.home, { log: () => {}, fs: faults });
  });
  afterEach(async () => {
    await store.close();
    temp.cleanup();
  });

  for (const fault of [
    { operation: "write", code: "ENOSPC", partialBytes: 17, expected: "storage_full" },
    { operation: "write", code: "EDQUOT", expected: "storage_full" },
    { operation: "fdatasync", code: "EIO", expected: "storage_error" },
  ] as const) {
    it(`${fault.code} on ${fault.operation}: the batch is cut back, its seqs given back, the next append continues the file`, async () => {
      const { conversationId } = await createConversation(store, { title: "Faults" });
      const file = store.paths.metadata(conversationId);
      const before = lines(file);
      faults.inject({ operation: fault.operation, code: fault.code, times: 1, partialBytes: "partialBytes" in fault ? fault.partialBytes : undefined });
      // Two lines in one tick share the failing batch; both are refused, neither lands.
      const results = await Promise.allSettled([
        store.appendMetadata(conversationId, { type: "conversation.updated", title: "lost one" }),
        store.appendMetadata(conversationId, { type: "conversation.updated", title: "lost two" }),
      ]);
      for (const result of results) {
        expect(result.status).toBe("rejected");
        const reason = (result as PromiseRejectedResult).reason;
        expect(isAtriumError(reason) && reason.code).toBe(fault.expected);
      }
      expect(lines(file)).toEqual(before);
      const next = await store.appendMetadata(conversationId, { type: "conversation.updated", title: "kept" });
      expect(next.seq).toBe(before.length + 1);
      const after = lines(file);
      expect(after.map((line) => line.seq)).toEqual(after.map((_, index) => index + 1));
      expect(after.at(-1)).toMatchObject({ type: "conversation.updated", title: "kept" });
    });
  }

  it("a failed cut is finished by the next writer: lines never acknowledged do not survive", async () => {
    const { conversationId } = await createConversation(store, { title: "Faults" });
    const file = store.paths.metadata(conversationId);
    const before = lines(file);
    faults.inject({ operation: "fdatasync", code: "EIO", times: 1 });
    faults.inject({ operation: "truncate", code: "EIO", times: 1 });
    await expect(store.appendMetadata(conversationId, { type: "conversation.updated", title: "never acknowledged" })).rejects.toMatchObject({
      code: "storage_error",
    });
    const next = await store.appendMetadata(conversationId, { type: "conversation.updated", title: "kept" });
    expect(next.seq).toBe(before.length + 1);
    expect(lines(file).map((line) => (line as { title?: string }).title)).not.toContain("never acknowledged");
  });

  it("an append to a conversation whose directory is gone answers not_found and recreates nothing", async () => {
    const { conversationId } = await createConversation(store, { title: "Gone" });
    await store.closeConversation(conversationId);
    fs.rmSync(store.paths.conversation(conversationId), { recursive: true, force: true });
    await expect(store.appendMetadata(conversationId, { type: "conversation.updated", title: "late" })).rejects.toMatchObject({ code: "not_found" });
    expect(fs.existsSync(store.paths.conversation(conversationId))).toBe(false);
  });
});
