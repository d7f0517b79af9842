import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { expect } from "vitest";
import { errorResponse } from "@/lib/api/respond";
import { reindex } from "@/lib/store/reindex";
import type { Harness } from "../../support/runtime-harness";
import { makeTempHome } from "../../support/temp-home";
import { dumpIndex } from "../store/index-dump";
import { RECORD_KEY_FILE } from "@/lib/store/record-proofs";

export type FaultCase = { operation: "write" | "fdatasync"; code: "ENOSPC" | "EIO"; status: 507 | 503; errorCode: "storage_full" | "storage_error" };

/** The two faults every record type is put through: a full disk on write, an I/O error on flush. */
export const FAULTS: FaultCase[] = [
  { operation: "write", code: "ENOSPC", status: 507, errorCode: "storage_full" },
  { operation: "fdatasync", code: "EIO", status: 503, errorCode: "storage_error" },
];

/** The rejection answers as the API would: the fault's status with `{error: {code, message}}`. */
export async function expectStorageAnswer(promise: Promise<unknown>, fault: FaultCase): Promise<void> {
  const error = await promise.then(
    () => {
      throw new Error(`expected ${fault.errorCode}, the call succeeded`);
    },
    (caught: unknown) => caught,
  );
  const response = errorResponse(error);
  expect(response.status).toBe(fault.status);
  const body = (await response.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe(fault.errorCode);
  expect(body.error.message).toMatch(/\S/);
}

/** Every line of every JSONL file parses, ends with a newline, and seqs count up from 1. */
export function expectWholeLines(home: string): void {
  const conversations = path.join(home, "conversations");
  for (const directory of fs.readdirSync(conversations)) {
    expect(directory.startsWith("."), `leftover ${directory}`).toBe(false);
    for (const name of fs.readdirSync(path.join(conversations, directory)).filter((file) => file.endsWith(".jsonl"))) {
      const text = fs.readFileSync(path.join(conversations, directory, name), "utf8");
      if (text === "") continue;
      expect(text.endsWith("\n"), `${directory}/${name} ends mid-line`).toBe(true);
      const seqs = text
        .trimEnd()
        .split("\n")
        .map((line) => (JSON.parse(line) as { seq: number }).seq);
      expect(seqs, `${directory}/${name} seqs`).toEqual(seqs.map((_, index) => index + 1));
    }
  }
}

/**
 * What clients were told happened is on disk: every item, turn end and queue change published
 * (the store publishes only after the flush) is found in the files.
 */
export function expectNothingAcknowledgedLost(harness: Harness): void {
  const conversations = path.join(harness.home, "conversations");
  const onDisk = new Set(fs.readdirSync(conversations));
  const text = (id: string) =>
    fs
      .readdirSync(path.join(conversations, id))
      .filter((file) => file.endsWith(".jsonl"))
      .map((file) => fs.readFileSync(path.join(conversations, id, file), "utf8"))
      .join("");
  const cache = new Map<string, string>();
  for (const { event } of harness.log) {
    if (!onDisk.has(event.conversationId)) continue;
    const files = cache.get(event.conversationId) ?? text(event.conversationId);
    cache.set(event.conversationId, files);
    if (event.type === "item.created") expect(files).toContain(`"id":"${event.item.id}"`);
    if (event.type === "item.completed") expect(files).toContain(`"type":"item.completed","itemId":"${event.item.id}"`);
    if (event.type === "turn.ended") expect(files).toContain(`"type":"turn.ended","turnId":"${event.turn.id}"`);
  }
}

/** A rebuild of the index from the files equals the index the live appends built. */
export function expectReindexEqualsLive(harness: Harness): void {
  const live = dumpIndex(harness.runtime.store.index.$client);
  const copy = makeTempHome("atrium-reindex-");
  try {
    fs.cpSync(path.join(harness.home, "conversations"), path.join(copy.home, "conversations"), { recursive: true });
    // A rebuild of this same data directory: its record key comes along, so its own decisions still verify.
    const key = path.join(harness.home, RECORD_KEY_FILE);
    if (fs.existsSync(key)) fs.copyFileSync(key, path.join(copy.home, RECORD_KEY_FILE));
    const report = reindex(copy.home, { log: () => {} });
    expect(report.skipped).toEqual([]);
    const client = new Database(path.join(copy.home, "metadata.db"));
    try {
      const rebuilt = dumpIndex(client);
      for (const table of Object.keys(live)) expect({ table, rows: rebuilt[table] }).toEqual({ table, rows: live[table] });
    } finally {
      client.close();
    }
  } finally {
    copy.cleanup();
  }
}

/** The conversation takes a new message once the fault is gone, and answers it. */
export async function expectTakesNewMessage(harness: Harness, conversationId: string): Promise<void> {
  await harness.settledTurns(conversationId, harness.runtime.listTurns(conversationId).length);
  const sent = await harness.runtime.sendMessage(conversationId, { text: "after the fault", mode: "auto" });
  const turnId = sent.turn?.id ?? (await harness.waitForEvent(conversationId, "turn.started", (event) => event.turn.inputMessageIds.includes(sent.message.id))).turn.id;
  const turn = await harness.turnEnded(conversationId, turnId);
  expect(turn.status).toBe("completed");
}

export function expectAllConsistent(harness: Harness): void {
  expectWholeLines(harness.home);
  expectNothingAcknowledgedLost(harness);
  expectReindexEqualsLive(harness);
}
