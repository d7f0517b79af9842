import { spawn } from "node:child_process";
import path from "node:path";
import readline from "node:readline";
import { describe, expect, it } from "vitest";
import { foldConversation } from "@/lib/store/conversation-fold";
import { createIdGenerator } from "@/lib/store/ids";
import { LeaseHeldError, Leases, type Lease } from "@/lib/store/postgres/leases";
import { LeaseLostError, PostgresRecordStore } from "@/lib/store/postgres/postgres-record-store";
import { usePostgresPerFile } from "../../support/embedded-postgres";
import { waitUntil } from "../../support/wait-until";
import { appendEveryRecordType, type RecordWriter } from "../store/every-record-type";
import { conversationCreated } from "../../support/conversation-records";

const newId = createIdGenerator();
const database = usePostgresPerFile();

/** One node: its leases, and a record store writing with the lease it holds on each conversation. */
function node(nodeId: string, seconds = 10) {
  const leases = new Leases(database.pool, nodeId, seconds);
  const held = new Map<string, Lease>();
  const records = new PostgresRecordStore(database.pool, (conversationId) => held.get(conversationId) ?? null);
  return {
    leases,
    records,
    held,
    async take(conversationId: string) {
      const lease = await leases.take(conversationId);
      held.set(conversationId, lease);
      return lease;
    },
  };
}

const progress = (itemId: string, text: string) => ({ type: "item.progress" as const, itemId, text });

async function epochsOf(conversationId: string, stream: string): Promise<Array<{ seq: number; epoch: number }>> {
  const rows = await database.pool.query<{ seq: string; epoch: string }>(
    "SELECT seq, epoch FROM atrium_records WHERE conversation_id = $1 AND stream = $2 ORDER BY seq",
    [conversationId, stream],
  );
  return rows.rows.map((row) => ({ seq: Number(row.seq), epoch: Number(row.epoch) }));
}

describe("PostgreSQL record store: order", () => {
  it("numbers each stream from 1, reads records back as they were written, and folds them as files fold", async () => {
    const a = node(newId());
    const conversationId = newId();
    const sessionId = newId();
    await a.take(conversationId);
    const first = await a.records.appendMetadata(conversationId, conversationCreated(conversationId, sessionId, "on postgres"));
    const second = await a.records.appendMetadata(conversationId, { type: "session.created", sessionId, agent: "default", model: "offline", parentSessionId: null, depth: 0 });
    const itemId = newId();
    const items = [];
    for (const text of ["a", "ab", "abc"]) items.push(await a.records.appendSession(conversationId, sessionId, progress(itemId, text)));
    expect([first.seq, second.seq]).toEqual([1, 2]);
    expect(items.map((record) => record.seq)).toEqual([1, 2, 3]);
    expect(Object.keys(first).slice(0, 4)).toEqual(["v", "seq", "at", "type"]);
    expect(await a.records.readMetadata(conversationId)).toEqual([first, second]);
    expect(await a.records.readSession(conversationId, sessionId)).toEqual(items);
    const fold = foldConversation(await a.records.foldSource(conversationId), conversationId, () => true);
    expect(fold?.sessions.has(sessionId)).toBe(true);
  });

  it("holds every record type of records.ts and gives each back unchanged, as the files do", async () => {
    const a = node(newId());
    const writer: RecordWriter = {
      newId,
      now: () => new Date(),
      async appendMetadata(conversationId, body) {
        if (!a.held.has(conversationId)) await a.take(conversationId);
        return a.records.appendMetadata(conversationId, body);
      },
      appendSession: (conversationId, sessionId, body) => a.records.appendSession(conversationId, sessionId, body),
    };
    const written = await appendEveryRecordType(writer);
    expect(await a.records.readMetadata(written.conversationId)).toEqual(written.metadata);
    for (const [sessionId, records] of written.sessions) expect(await a.records.readSession(written.conversationId, sessionId)).toEqual(records);
    const fold = foldConversation(await a.records.foldSource(written.conversationId), written.conversationId, () => true);
    expect([...fold!.sessions.keys()].sort()).toEqual([written.rootSessionId, written.subagentSessionId].sort());
  });

  it("keeps concurrent appends of one owner gap-free and distinct in every stream", async () => {
    const a = node(newId());
    const conversationId = newId();
    const streams = [newId(), newId(), newId()];
    await a.take(conversationId);
    const written = await Promise.all(
      streams.flatMap((sessionId) => Array.from({ length: 40 }, (_, index) => a.records.appendSession(conversationId, sessionId, progress(sessionId, String(index))))),
    );
    expect(written).toHaveLength(120);
    for (const sessionId of streams) {
      const seqs = (await a.records.readSession(conversationId, sessionId)).map((record) => record.seq);
      expect(seqs).toEqual(Array.from({ length: 40 }, (_, index) => index + 1));
    }
  });

  it("numbers a burst in the order its appends were made, and keeps appending after a burst", async () => {
    const a = node(newId());
    const conversationId = newId();
    const sessionId = newId();
    await a.take(conversationId);
    const burst = await Promise.all(Array.from({ length: 300 }, (_, index) => a.records.appendSession(conversationId, sessionId, progress(sessionId, String(index)))));
    expect(burst.map((record) => [record.seq, (record as { text?: string }).text])).toEqual(Array.from({ length: 300 }, (_, index) => [index + 1, String(index)]));
    const after = await a.records.appendSession(conversationId, sessionId, progress(sessionId, "after"));
    expect(after.seq).toBe(301);
    expect((await a.records.readSession(conversationId, sessionId)).map((record) => record.seq)).toEqual(Array.from({ length: 301 }, (_, index) => index + 1));
  });

  it("refuses a whole burst written with a lost lease, writing none of it", async () => {
    const a = node(newId(), 30);
    const b = node(newId(), 1);
    const conversationId = newId();
    const sessionId = newId();
    const lease = await a.take(conversationId);
    await a.records.appendSession(conversationId, sessionId, progress(sessionId, "before"));
    await expireSoon(lease);
    await waitUntil(async () => (await b.leases.holder(conversationId)) === null, "a's lease to expire", 5_000, 50);
    await b.take(conversationId);
    const answers = await Promise.allSettled(Array.from({ length: 50 }, (_, index) => a.records.appendSession(conversationId, sessionId, progress(sessionId, String(index)))));
    expect(answers.every((answer) => answer.status === "rejected" && answer.reason instanceof LeaseLostError)).toBe(true);
    expect(await epochsOf(conversationId, sessionId)).toEqual([{ seq: 1, epoch: 1 }]);
  });

  it("refuses to change or remove a record once written (append-only)", async () => {
    const a = node(newId());
    const conversationId = newId();
    await a.take(conversationId);
    await a.records.appendSession(conversationId, conversationId, progress(conversationId, "kept"));
    await expect(database.pool.query("UPDATE atrium_records SET record = '{}' WHERE conversation_id = $1", [conversationId])).rejects.toMatchObject({ code: "AT002" });
    await expect(database.pool.query("DELETE FROM atrium_records WHERE conversation_id = $1", [conversationId])).rejects.toMatchObject({ code: "AT002" });
  });
});

describe("leases", () => {
  it("are taken by one node at a time, renewed, handed back and taken at a higher epoch", async () => {
    const a = node(newId());
    const b = node(newId());
    const conversationId = newId();
    const lease = await a.take(conversationId);
    expect(lease.epoch).toBe(1);
    await expect(b.leases.take(conversationId)).rejects.toBeInstanceOf(LeaseHeldError);
    const renewed = await a.leases.renew(lease);
    expect(renewed!.expiresAt.getTime()).toBeGreaterThan(lease.expiresAt.getTime());
    expect((await a.leases.held()).map((held) => held.conversationId)).toContain(conversationId);
    expect(await a.leases.handBack(lease)).toBe(true);
    expect(await a.leases.holder(conversationId)).toBeNull();
    const taken = await b.take(conversationId);
    expect(taken).toMatchObject({ nodeId: b.leases.nodeId, epoch: 2 });
    expect(await a.leases.renew(lease)).toBeNull();
  });

  it("expire after leaseSeconds when their node stops renewing, and another node takes over", async () => {
    const a = node(newId(), 1);
    const b = node(newId(), 1);
    const conversationId = newId();
    const lease = await a.take(conversationId);
    await waitUntil(async () => (await a.leases.holder(conversationId)) === null, "the lease to expire", 5_000, 50);
    expect(await a.leases.renew(lease)).toBeNull();
    expect(await b.take(conversationId)).toMatchObject({ epoch: 2 });
  });
});

/** The stale owner as a second OS process, writing with the lease it was given. */
/**
 * Lets a lease taken for long enough (a second process may take seconds to start on a loaded
 * machine) run out in `seconds` from now: renewed once with that length.
 */
async function expireSoon(lease: Lease, seconds = 1): Promise<void> {
  expect(await new Leases(database.pool, lease.nodeId, seconds).renew(lease)).not.toBeNull();
}

function staleOwner(conversationId: string, sessionId: string, lease: Lease) {
  const script = path.resolve(import.meta.dirname, "../../support/stale-owner-process.ts");
  const child = spawn(
    process.execPath,
    ["--import", "tsx", script, database.postgres.url, conversationId, sessionId, lease.nodeId, String(lease.epoch)],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const lines = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => JSON.parse((await lines.next()).value as string) as { ready?: boolean; ok?: boolean; seq?: number; code?: string };
  return {
    child,
    ready: next,
    async append(text: string) {
      child.stdin.write(`append ${text}\n`);
      return next();
    },
    async exit() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.stdin.write("exit\n");
      await exited;
    },
  };
}

describe("fencing", () => {
  it("refuses every write of a former owner (another process) once another node took the lease", async () => {
    const a = node(newId(), 30);
    const b = node(newId(), 1);
    const conversationId = newId();
    const sessionId = newId();
    const lease = await a.take(conversationId);
    const former = staleOwner(conversationId, sessionId, lease);
    try {
      expect(await former.ready()).toEqual({ ready: true });
      expect(await former.append("before")).toEqual({ ok: true, seq: 1 });
      await expireSoon(lease);
      await waitUntil(async () => (await b.leases.holder(conversationId)) === null, "a's lease to expire", 5_000, 50);
      await b.take(conversationId);
      expect(await former.append("after take-over")).toEqual({ ok: false, code: "lease_lost" });
      await b.records.appendSession(conversationId, sessionId, progress(sessionId, "new owner"));
      await b.leases.renew(b.held.get(conversationId)!);
      expect(await former.append("still stale")).toEqual({ ok: false, code: "lease_lost" });
      await expect(a.records.appendSession(conversationId, sessionId, progress(sessionId, "a in-process"))).rejects.toBeInstanceOf(LeaseLostError);
      expect(await epochsOf(conversationId, sessionId)).toEqual([
        { seq: 1, epoch: 1 },
        { seq: 2, epoch: 2 },
      ]);
    } finally {
      await former.exit();
    }
  });

  it("refuses the writes of a former owner paused (SIGSTOP) past its lease and resumed (SIGCONT) after a take-over", async () => {
    const a = node(newId(), 30);
    const b = node(newId(), 1);
    const conversationId = newId();
    const sessionId = newId();
    const lease = await a.take(conversationId);
    const former = staleOwner(conversationId, sessionId, lease);
    try {
      await former.ready();
      expect(await former.append("before the pause")).toEqual({ ok: true, seq: 1 });
      former.child.kill("SIGSTOP");
      await expireSoon(lease);
      await waitUntil(async () => (await b.leases.holder(conversationId)) === null, "the paused owner's lease to expire", 5_000, 50);
      await b.take(conversationId);
      former.child.kill("SIGCONT");
      expect(await former.append("after the pause")).toEqual({ ok: false, code: "lease_lost" });
      expect(await epochsOf(conversationId, sessionId)).toEqual([{ seq: 1, epoch: 1 }]);
    } finally {
      former.child.kill("SIGCONT");
      await former.exit();
    }
  });

  it("orders every write of the old epoch before the new one when a take-over races a writing former owner", async () => {
    const nodeId = newId();
    const conversationId = newId();
    const sessionId = newId();
    const first = node(nodeId);
    const lease = await first.take(conversationId);
    const former = staleOwner(conversationId, sessionId, lease);
    try {
      await former.ready();
      // The former self of a restarted node: same node id, lease not expired, only the epoch is old.
      const writing = (async () => {
        const answers = [];
        for (let index = 0; index < 60; index += 1) answers.push(await former.append(String(index)));
        return answers;
      })();
      await waitUntil(async () => (await epochsOf(conversationId, sessionId)).length >= 5, "the former owner to write", 10_000, 5);
      const restarted = node(nodeId);
      const taken = await restarted.take(conversationId);
      expect(taken.epoch).toBe(2);
      const mine = await restarted.records.appendSession(conversationId, sessionId, progress(sessionId, "restarted"));
      const answers = await writing;
      const refusedFrom = answers.findIndex((answer) => !answer.ok);
      expect(refusedFrom).toBeGreaterThan(0);
      expect(answers.slice(refusedFrom).every((answer) => answer.code === "lease_lost")).toBe(true);
      const rows = await epochsOf(conversationId, sessionId);
      expect(rows.map((row) => row.seq)).toEqual(rows.map((_, index) => index + 1));
      expect(rows.filter((row) => row.epoch === 1)).toHaveLength(refusedFrom);
      expect(rows.filter((row) => row.epoch === 2).map((row) => row.seq)).toEqual([mine.seq]);
      expect(Math.max(...rows.filter((row) => row.epoch === 1).map((row) => row.seq))).toBeLessThan(mine.seq);
    } finally {
      await former.exit();
    }
  });
});
