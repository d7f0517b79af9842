/**
 * A cluster node's database side as its own OS process (the cluster tests): ClusterNode started
 * with the URL and lease length given, then one JSON answer line on stdout per stdin command:
 * "acquire <conversationId>" → {ok, epoch} | {ok: false, code}; "append <conversationId> <sessionId> <text>"
 * → {ok, seq} | {ok: false, code}; "write <conversationId> <items>" → a whole conversation (created,
 * its root session, then <items> user messages, their appends concurrent) → {ok, seq: last item seq};
 * "exit" → a clean stop (leases handed back), then exit.
 * Usage: node --import tsx cluster-node-process.ts <databaseUrl> <nodeUrl> <leaseSeconds>
 */
import readline from "node:readline";
import { createIdGenerator } from "../../lib/store/ids";
import { ClusterNode } from "../../lib/store/postgres/cluster-node";
import { conversationCreated, rootSessionCreated } from "./conversation-records";

const newId = createIdGenerator();

/** A conversation with `items` user messages in its root session, written with this node's lease. */
async function writeConversation(node: ClusterNode, conversationId: string, items: number): Promise<number> {
  const sessionId = newId();
  await node.keeper.acquire(conversationId);
  await node.records.appendMetadata(conversationId, conversationCreated(conversationId, sessionId, `written by ${node.id}`));
  await node.records.appendMetadata(conversationId, rootSessionCreated(sessionId));
  const written = await Promise.all(
    Array.from({ length: items }, (_, index) =>
      node.records.appendSession(conversationId, sessionId, {
        type: "item.created",
        item: { id: newId(), sessionId, turnId: null, kind: "user_message", status: "completed", text: `message ${index}`, createdAt: new Date().toISOString() },
      }),
    ),
  );
  return written.at(-1)?.seq ?? 0;
}

const [databaseUrl, nodeUrl, leaseSeconds] = process.argv.slice(2);
const node = await ClusterNode.start({ databaseUrl: databaseUrl!, nodeUrl: nodeUrl!, leaseSeconds: Number(leaseSeconds) });
const answer = (value: object) => process.stdout.write(`${JSON.stringify(value)}\n`);
answer({ ready: true, id: node.id, recordKey: node.recordKey.toString("hex") });

for await (const line of readline.createInterface({ input: process.stdin })) {
  const [command, conversationId, sessionId, ...text] = line.split(" ");
  try {
    if (command === "exit") break;
    if (command === "write") answer({ ok: true, seq: await writeConversation(node, conversationId!, Number(sessionId)) });
    else if (command === "acquire") answer({ ok: true, epoch: (await node.keeper.acquire(conversationId!)).epoch });
    else if (command === "append") {
      const record = await node.records.appendSession(conversationId!, sessionId!, { type: "item.progress", itemId: sessionId!, text: text.join(" ") });
      answer({ ok: true, seq: record.seq });
    } else answer({ ok: false, code: `unknown command ${command}` });
  } catch (error) {
    answer({ ok: false, code: (error as { code?: string }).code ?? String(error) });
  }
}
await node.stop();
// stdin stays referenced after the loop ends: leave at once.
process.exit(0);
