import type { Item } from "../events/entities";
import { isAtriumError } from "../errors";
import { changeObjective, currentObjective, setObjective } from "./objectives";
import type { TurnHandle } from "./owner-port";

type Result = { status: "completed" | "failed"; output: string };

/** objective_update and wait_for_event (DESIGN §6), for the root agent's turns. */
export async function runObjectiveTool(runner: TurnHandle, item: Item): Promise<Result | null> {
  if (item.toolName !== "objective_update" && item.toolName !== "wait_for_event") return null;
  const { actor } = runner;
  const input = (item.input ?? {}) as Record<string, unknown>;
  const objective = currentObjective(actor);
  if (!objective || objective.status !== "open") return { status: "failed", output: "There is no open objective in this conversation." };
  if (item.toolName === "objective_update") {
    const status = input.status;
    if (status !== "completed" && status !== "blocked" && status !== "cancelled") {
      return { status: "failed", output: "Invalid input for objective_update: status: one of completed, blocked, cancelled" };
    }
    try {
      const updated = await changeObjective(actor, { status, note: typeof input.note === "string" ? input.note : undefined });
      return { status: "completed", output: `Objective ${updated.status}.` };
    } catch (error) {
      if (isAtriumError(error)) return { status: "failed", output: error.message };
      throw error;
    }
  }
  const match = input.match;
  if (input.source !== "github" || typeof match !== "object" || match === null || Object.keys(match).length === 0) {
    return { status: "failed", output: 'Invalid input for wait_for_event: give source "github" and a non-empty match object' };
  }
  await actor.locked(() => setObjective(actor, objective, { status: "waiting_event", listener: { source: "github", match } }));
  return { status: "completed", output: `The objective now waits for a github event matching ${JSON.stringify(match)}. End this slice; it continues when the event arrives.` };
}
