import type { Runtime } from "@/lib/engine/runtime";
import type { Turn } from "@/lib/events/entities";
import { waitUntil } from "../support/wait-until";
import type { ModelConversation } from "./model-state";

const PARKED: ReadonlySet<Turn["status"]> = new Set(["waiting_approval", "waiting_user"]);

/** Ended, or parked on the owner: nothing more happens to it until someone acts. */
export function isSettled(turn: Turn): boolean {
  return turn.endedAt !== null || PARKED.has(turn.status);
}

/**
 * Waits until every turn of every live conversation has ended or parked, and stays so after
 * one more pass through each owner's queue (a turn's end and the start of the next waiting
 * message happen inside one command of the owner: taking its lock afterwards sees that start).
 * Polls with a deadline; never a fixed sleep.
 */
export async function settle(runtime: Runtime, conversations: readonly ModelConversation[], timeoutMs = 15_000): Promise<void> {
  const ids = conversations.filter((conversation) => !conversation.deleted).map((conversation) => conversation.id);
  const allSettled = () => ids.every((id) => runtime.listTurns(id).every(isSettled));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await waitUntil(allSettled, `every turn of ${ids.join(", ")} to end or park`, Math.max(1, deadline - Date.now()), 5);
    for (const id of ids) await runtime.actor(id).locked(() => undefined);
    if (allSettled()) break;
  }
  await runtime.context.checkpoints?.settle();
}
