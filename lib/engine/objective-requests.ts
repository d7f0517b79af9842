import type { EngineOwner } from "./engine-owner";
import { AtriumError } from "../errors";
import type { Objective } from "../events/entities";
import { changeObjective, openObjective } from "./objectives";
import type { RequestKeys } from "./request-keys";

/**
 * The objective requests of the API (open, change), each under its requestKey: a repeated
 * request answers with the objective as it stands and writes nothing again.
 */
export function openObjectiveRequest(
  keys: RequestKeys,
  actor: EngineOwner,
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
      return openObjective(actor, text, keyed);
    },
    () => objectiveAsItStands(actor),
  );
}

export function changeObjectiveRequest(
  keys: RequestKeys,
  actor: EngineOwner,
  change: { status: "open" | "completed" | "blocked" | "cancelled" | "paused"; note?: string },
  requestKey: string | undefined,
): Promise<Objective> {
  return keys.run(
    actor.id,
    requestKey,
    { objective: "change", status: change.status, note: change.note },
    (keyed) => changeObjective(actor, change, keyed),
    () => objectiveAsItStands(actor),
  );
}

function objectiveAsItStands(actor: EngineOwner): Objective {
  const objective = actor.conversation().objective;
  if (!objective) throw new AtriumError("not_found", "this conversation has no objective");
  return objective;
}
