import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FaultyStorageFs } from "@/lib/store/storage-fs";
import { startHarness, type Harness } from "../../support/runtime-harness";
import { expectAllConsistent, expectStorageAnswer, FAULTS } from "./consistency";

/**
 * Creating is undone whole when its last steps fail. The last step of creating a conversation flushes the conversations folder after the rename
 * into place. If that flush fails the creation is not durable, so it answers with the fault
 * and nothing of it stays: not in the list, not on disk, and its upload is back to be reused.
 */
let harness: Harness;
afterEach(async () => harness?.close());

const ALL = { archived: "all", offset: 0, limit: 100 } as const;

describe.each(FAULTS.filter((fault) => fault.operation === "fdatasync"))("$code flushing the conversations folder", (fault) => {
  it("creating answers with the fault, leaves no conversation, and gives the upload back", async () => {
    const faults = new FaultyStorageFs();
    harness = await startHarness({}, undefined, { fs: faults });
    const conversations = path.join(harness.home, "conversations");
    const upload = await harness.runtime.upload("notes.txt", "text/plain", Buffer.from("remember the milk\n"));
    faults.inject({ operation: "fsyncdir", code: fault.code, pathIs: conversations, times: 1 });

    await expectStorageAnswer(harness.runtime.createConversation({ text: "keep this", attachments: [upload.id], requestKey: "create-1" }), fault);
    expect(faults.fired).toBe(1);
    expect((await harness.runtime.listConversations(ALL)).total).toBe(0);
    expect(fs.readdirSync(conversations).filter((name) => !name.startsWith("."))).toEqual([]);

    const created = await harness.runtime.createConversation({ text: "keep this", attachments: [upload.id], requestKey: "create-1" });
    await harness.turnEnded(created.conversation.id, created.turn.id);
    expect(harness.runtime.listItems(created.conversation.id, {}).items[0].attachments).toEqual([upload]);
    expect((await harness.runtime.listConversations(ALL)).total).toBe(1);
    expectAllConsistent(harness);
  });

  it("a first message that cannot be recorded takes the conversation and its requestKey away, so the retry creates it whole", async () => {
    const faults = new FaultyStorageFs();
    harness = await startHarness({}, undefined, { fs: faults });
    // Staged files live under conversations/.staging-…; the first write under the conversation's
    // own folder (conversations/<ULID>/…) is its first message, once the folder is in place.
    faults.inject({ operation: fault.operation, code: fault.code, pathIncludes: `${path.sep}conversations${path.sep}0`, times: 1 });
    await expectStorageAnswer(harness.runtime.createConversation({ text: "first words", requestKey: "create-2" }), fault);
    expect(faults.fired).toBe(1);
    expect((await harness.runtime.listConversations(ALL)).total).toBe(0);

    const created = await harness.runtime.createConversation({ text: "first words", requestKey: "create-2" });
    await harness.turnEnded(created.conversation.id, created.turn.id);
    expect(harness.runtime.listItems(created.conversation.id, {}).items[0]).toMatchObject({ kind: "user_message", text: "first words" });
    expectAllConsistent(harness);
  });
});
