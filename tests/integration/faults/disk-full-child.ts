import { parseConfig } from "@/lib/config/config";
import { Runtime } from "@/lib/engine/runtime";
import { isAtriumError } from "@/lib/errors";
import { FaultyStorageFs } from "@/lib/store/storage-fs";
import { Store } from "@/lib/store/store";

/**
 * A process holding a Runtime on ATRIUM_HOME whose disk fills up mid-turn. It prints what it
 * acknowledged, as one JSON line, then waits to be killed with SIGKILL by the test.
 */
const home = process.env.ATRIUM_HOME!;
const faults = new FaultyStorageFs();
const runtime = new Runtime({ store: new Store(home, { log: () => {}, fs: faults }), config: parseConfig({ defaultCwd: home }), log: () => {} });
await runtime.start();

function turnEnd(conversationId: string, turnId: string): Promise<void> {
  return new Promise((resolve) => {
    const unsubscribe = runtime.bus.subscribe(conversationId, ({ event }) => {
      if (event.type === "turn.ended" && event.turn.id === turnId) {
        unsubscribe();
        resolve();
      }
    });
  });
}

const created = await runtime.createConversation({ text: "first" });
const conversationId = created.conversation.id;
await turnEnd(conversationId, created.turn.id);
const second = await runtime.sendMessage(conversationId, { text: "second", mode: "auto" });
await turnEnd(conversationId, second.turn!.id);
const streamed = new Promise<void>((resolve) => {
  const unsubscribe = runtime.bus.subscribe(conversationId, ({ event }) => {
    if (event.type === "item.created" && event.item.kind === "assistant_message") {
      unsubscribe();
      resolve();
    }
  });
});
const running = await runtime.sendMessage(conversationId, { text: "long [[delay:20]] [[stream:2000]]", mode: "auto" });
await streamed;
faults.inject({ operation: "write", code: "ENOSPC", partialBytes: 7 });

const refusals: string[] = [];
for (const attempt of [
  () => runtime.sendMessage(conversationId, { text: "refused while full", mode: "queue" }),
  () => runtime.createConversation({ text: "refused new conversation" }),
  () => runtime.updateConversation(conversationId, { title: "refused title" }),
]) {
  try {
    await attempt();
    refusals.push("accepted");
  } catch (error) {
    refusals.push(isAtriumError(error) ? error.code : String(error));
  }
}
const items = runtime.listItems(conversationId, { limit: 500 }).items.filter((item) => item.status !== "streaming");
process.stdout.write(
  `${JSON.stringify({
    conversationId,
    endedTurns: [created.turn.id, second.turn!.id],
    runningTurn: running.turn!.id,
    acknowledgedItems: items.map((item) => item.id),
    refusals,
  })}\n`,
);
setInterval(() => undefined, 1000);
