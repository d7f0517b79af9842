import { pollUntil } from "./poll";
import type { Harness } from "./runtime-harness";

/**
 * On a cluster node started with `maxLoadedOwners: 1`: creates conversations there, each run to
 * idle, until `gone` says the idle owner in question has left memory and handed its lease back
 * (an owner with work under way is not evicted, so one more conversation may be needed).
 */
export async function pushOutIdleOwner(node: Harness, gone: () => Promise<boolean> | boolean, what: string, text = "pushes the first out"): Promise<void> {
  await pollUntil(
    async () => {
      const other = (await node.runtime.createConversation({ text })).conversation.id;
      await pollUntil(async () => (await node.runtime.pages.getConversation(other)).status === "idle", { what: "the other idle" });
      return gone();
    },
    { what },
  );
}
