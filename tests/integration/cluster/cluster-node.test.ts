import { spawn } from "node:child_process";
import path from "node:path";
import readline from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import { openIndex } from "@/lib/store/database";
import { createIdGenerator } from "@/lib/store/ids";
import { IndexWriter } from "@/lib/store/index-writer";
import * as queries from "@/lib/store/queries";
import { ClusterNode } from "@/lib/store/postgres/cluster-node";
import { LeaseHeldError } from "@/lib/store/postgres/leases";
import { RecordProofs } from "@/lib/store/record-proofs";
import { usePostgresPerFile } from "../../support/embedded-postgres";
import { makeTempHome } from "../../support/temp-home";
import { waitUntil } from "../../support/wait-until";
import { conversationCreated } from "../../support/conversation-records";

const newId = createIdGenerator();
const database = usePostgresPerFile();
const cleanups: Array<() => Promise<unknown> | void> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Answer {
  ready?: boolean;
  id?: string;
  recordKey?: string;
  ok?: boolean;
  epoch?: number;
  seq?: number;
  code?: string;
}

/** A node as its own OS process (tests/support/cluster-node-process.ts). */
async function nodeProcess(leaseSeconds: number, nodeUrl: string) {
  const script = path.resolve(import.meta.dirname, "../../support/cluster-node-process.ts");
  const child = spawn(process.execPath, ["--import", "tsx", script, database.postgres.url, nodeUrl, String(leaseSeconds)], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
  });
  const lines = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => JSON.parse((await lines.next()).value as string) as Answer;
  const ready = await next();
  return {
    child,
    id: ready.id!,
    recordKey: ready.recordKey!,
    async send(command: string) {
      child.stdin.write(`${command}\n`);
      return next();
    },
    async exit() {
      child.stdin.write("exit\n");
      await exited;
    },
  };
}

async function inProcessNode(leaseSeconds: number, nodeUrl: string) {
  const node = await ClusterNode.start({ databaseUrl: database.postgres.url, nodeUrl, leaseSeconds });
  cleanups.push(() => node.stop());
  return node;
}

/**
 * An in-memory index kept up with every node's records: the node's replica told to follow the
 * feed and catch every conversation up (a node's own index holds only the conversations it holds,
 * each caught up the same way when it takes its lease: cluster-owned-index.test.ts).
 */
async function indexOf(node: ClusterNode) {
  const { home, cleanup } = makeTempHome();
  const index = openIndex(":memory:");
  cleanups.push(cleanup, () => void index.$client.close());
  const replica = await node.replicateIndex(index.$client, new IndexWriter(index.$client, new RecordProofs(home, node.recordKey)));
  replica.follow(node.feed);
  await replica.catchUpAll();
  return index;
}

describe("cluster node", () => {
  it("registers with its url, is seen at each heartbeat, and counts the leases it holds", async () => {
    const a = await nodeProcess(3, "http://127.0.0.1:4101");
    const b = await inProcessNode(3, "http://127.0.0.1:4102");
    const conversationId = newId();
    expect(await a.send(`acquire ${conversationId}`)).toEqual({ ok: true, epoch: 1 });
    const listed = await b.nodes.list();
    expect(listed.find((node) => node.id === a.id)).toMatchObject({ url: "http://127.0.0.1:4101", conversations: 1 });
    expect(listed.find((node) => node.id === b.id)).toMatchObject({ url: "http://127.0.0.1:4102", conversations: 0 });
    const firstSeen = listed.find((node) => node.id === a.id)!.lastSeenAt;
    await waitUntil(async () => (await b.nodes.list()).find((node) => node.id === a.id)!.lastSeenAt > firstSeen, "a heartbeat of node A", 10_000, 100);
  });

  it("hands its leases back on a clean stop, so another node takes the conversation at once at the next epoch", async () => {
    const a = await nodeProcess(30, "http://127.0.0.1:4103");
    const b = await inProcessNode(30, "http://127.0.0.1:4104");
    const conversationId = newId();
    const sessionId = newId();
    expect(await a.send(`acquire ${conversationId}`)).toEqual({ ok: true, epoch: 1 });
    expect(await a.send(`append ${conversationId} ${sessionId} from a`)).toEqual({ ok: true, seq: 1 });
    await expect(b.keeper.acquire(conversationId)).rejects.toBeInstanceOf(LeaseHeldError);
    await a.exit();
    expect((await b.keeper.acquire(conversationId)).epoch).toBe(2);
    expect((await b.records.appendSession(conversationId, sessionId, { type: "item.progress", itemId: sessionId, text: "from b" })).seq).toBe(2);
  });

  it("after a kill -9, keeps the conversation from every node until the lease expires, then lets one take it over", async () => {
    const a = await nodeProcess(2, "http://127.0.0.1:4105");
    const b = await inProcessNode(2, "http://127.0.0.1:4106");
    const conversationId = newId();
    const sessionId = newId();
    await a.send(`acquire ${conversationId}`);
    expect(await a.send(`append ${conversationId} ${sessionId} before the kill`)).toEqual({ ok: true, seq: 1 });
    a.child.kill("SIGKILL");
    await expect(b.keeper.acquire(conversationId)).rejects.toBeInstanceOf(LeaseHeldError);
    await waitUntil(
      () => b.keeper.acquire(conversationId).then(() => true, (error: unknown) => (error instanceof LeaseHeldError ? false : Promise.reject(error))),
      "node B to take the conversation over",
      10_000,
      50,
    );
    expect(b.keeper.lease(conversationId)!.epoch).toBe(2);
    expect((await b.records.appendSession(conversationId, sessionId, { type: "item.progress", itemId: sessionId, text: "after" })).seq).toBe(2);
  });

  it("signs with one record key on every node: a decision proved on one node verifies on another", async () => {
    const a = await nodeProcess(10, "http://127.0.0.1:4107");
    const b = await inProcessNode(10, "http://127.0.0.1:4108");
    expect(b.recordKey.toString("hex")).toBe(a.recordKey);
    const [homeA, homeB] = [makeTempHome(), makeTempHome()];
    cleanups.push(homeA.cleanup, homeB.cleanup);
    const subject = { conversationId: newId(), approvalId: newId(), itemId: newId(), toolName: "shell", input: { command: "ls" } };
    const proof = new RecordProofs(homeA.home, Buffer.from(a.recordKey, "hex")).decision(subject, "approve");
    expect(new RecordProofs(homeB.home, b.recordKey).verifyDecision(proof, subject, "approve")).toBe(true);
    expect(new RecordProofs(homeB.home).verifyDecision(proof, subject, "approve")).toBe(false);
  });

  it("accounts for every record of 30 conversations written at once by 3 node processes, in a node following live and in one started after", async () => {
    const writers = await Promise.all([4111, 4112, 4113].map((port) => nodeProcess(10, `http://127.0.0.1:${port}`)));
    const live = await inProcessNode(10, "http://127.0.0.1:4114");
    const liveIndex = await indexOf(live);
    const written = new Map<string, string>();
    await Promise.all(
      writers.map(async (writer) => {
        for (let index = 0; index < 10; index += 1) {
          const conversationId = newId();
          expect(await writer.send(`write ${conversationId} 20`)).toEqual({ ok: true, seq: 20 });
          written.set(conversationId, writer.id);
        }
      }),
    );
    const late = await inProcessNode(10, "http://127.0.0.1:4115");
    const lateIndex = await indexOf(late);
    const expectedTexts = Array.from({ length: 20 }, (_, index) => `message ${index}`);
    for (const index of [liveIndex, lateIndex]) {
      await waitUntil(() => [...written.keys()].every((id) => queries.conversationRow(index, id)?.metadataSeq === 2), "every conversation in the index", 20_000);
      for (const [conversationId, writerId] of written) {
        const row = queries.conversationRow(index, conversationId)!;
        expect(row.title).toBe(`written by ${writerId}`);
        await waitUntil(() => queries.listItems(index, row.rootSessionId, 0, 500).items.length === 20, "the conversation's 20 items");
        const items = queries.listItems(index, row.rootSessionId, 0, 500).items;
        expect(items.map((item) => [item.seq, item.text])).toEqual(expectedTexts.map((text, at) => [at + 1, text]));
      }
    }
    expect((await live.nodes.list()).filter((node) => writers.some((writer) => writer.id === node.id)).map((node) => node.conversations)).toEqual([10, 10, 10]);
  });

  it("keeps its index up with a conversation another node creates", async () => {
    const a = await inProcessNode(10, "http://127.0.0.1:4109");
    const b = await inProcessNode(10, "http://127.0.0.1:4110");
    const index = await indexOf(b);
    const conversationId = newId();
    await a.keeper.acquire(conversationId);
    await a.records.appendMetadata(conversationId, conversationCreated(conversationId, newId(), "made on A"));
    await waitUntil(() => queries.conversationRow(index, conversationId) !== undefined, "the conversation in node B's index");
    expect(queries.conversationRow(index, conversationId)!.title).toBe("made on A");
  });
});
