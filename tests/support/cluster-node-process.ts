/**
 * A cluster node's database side as its own OS process (the cluster tests): ClusterNode started
 * with the URL and lease length given, then one JSON answer line on stdout per stdin command:
 * "acquire <conversationId>" → {ok, epoch} | {ok: false, code}; "append <conversationId> <sessionId> <text>"
 * → {ok, seq} | {ok: false, code}; "exit" → a clean stop (leases handed back), then exit.
 * Usage: node --import tsx cluster-node-process.ts <databaseUrl> <nodeUrl> <leaseSeconds>
 */
import readline from "node:readline";
import { ClusterNode } from "../../lib/store/postgres/cluster-node";

const [databaseUrl, nodeUrl, leaseSeconds] = process.argv.slice(2);
const node = await ClusterNode.start({ databaseUrl: databaseUrl!, nodeUrl: nodeUrl!, leaseSeconds: Number(leaseSeconds) });
const answer = (value: object) => process.stdout.write(`${JSON.stringify(value)}\n`);
answer({ ready: true, id: node.id, recordKey: node.recordKey.toString("hex") });

for await (const line of readline.createInterface({ input: process.stdin })) {
  const [command, conversationId, sessionId, ...text] = line.split(" ");
  try {
    if (command === "exit") break;
    if (command === "acquire") answer({ ok: true, epoch: (await node.keeper.acquire(conversationId!)).epoch });
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
