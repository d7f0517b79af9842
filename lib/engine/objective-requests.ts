import type { ConversationActor } from "./conversation-actor";
import { AtriumError } from "../errors";
import type { Objective } from "../events/entities";
import type { RequestKeys } from "./request-keys";

/**
 * The objective requests of the API (open, change), each under its requestKey: a repeated
 * request answers with the objective as it stands and writes nothing again.
 */
export function openObjectiveRequest(
  keys: RequestKeys,
  actor: ConversationActor,
  text: string,
  requestKey: string | undefined,
  assertUsable: () => void,
): Promise<Objective> {
  return keys.run(
    actor.id,
    requestKey,
    { objective: "open", text },
    (keyed) => {
      assertUsable();
      return actor.execute({ type: "open_objective", text, keyed });
    },
    // The opening was recorded but what follows it may not have been (a storage fault answered
    // the first request): the objective this key opened, still open with nothing running or
    // waiting, gets its first slice now, on the terms the first request had (a conversation no
    // longer usable here answers as it would have then). One opened since is not this key's to
    // run; one whose slice runs or waits was whole, and is answered as it stands, whatever changed.
    async (reference) => {
      const current = actor.conversation().objective;
      const idle = !actor.root.runner && !actor.waiting.some((entry) => entry.sessionId === actor.rootSessionId);
      if (current && current.id === reference.objectiveId && current.status === "open" && idle) {
        assertUsable();
        await actor.execute({ type: "continue_objective" });
      }
      return objectiveAsItStands(actor);
    },
  );
}

export function changeObjectiveRequest(
  keys: RequestKeys,
  actor: ConversationActor,
  change: { status: "open" | "completed" | "blocked" | "cancelled" | "paused"; note?: string },
  requestKey: string | undefined,
): Promise<Objective> {
  return keys.run(
    actor.id,
    requestKey,
    { objective: "change", status: change.status, note: change.note },
    (keyed) => actor.changeObjective(change, keyed),
    () => objectiveAsItStands(actor),
  );
}

function objectiveAsItStands(actor: ConversationActor): Objective {
  const objective = actor.conversation().objective;
  if (!objective) throw new AtriumError("not_found", "this conversation has no objective");
  return objective;
}
