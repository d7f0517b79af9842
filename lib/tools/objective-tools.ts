import type { Item } from "../events/entities";
import { isAtriumError } from "../errors";
import type { TurnHandle } from "../ports/owner-port";

type Result = { status: "completed" | "failed"; output: string };

/** objective_update and wait_for_event (DESIGN §6), for the root agent's turns. */
export async function runObjectiveTool(runner: TurnHandle, item: Item): Promise<Result | null> {
  if (item.toolName !== "objective_update" && item.toolName !== "wait_for_event") return null;
  const { actor } = runner;
  const input = (item.input ?? {}) as Record<string, unknown>;
  const objective = actor.objective();
  if (!objective || objective.status !== "open") return { status: "failed", output: "There is no open objective in this conversation." };
  if (item.toolName === "objective_update") {
    const status = input.status;
    if (status !== "completed" && status !== "blocked" && status !== "cancelled") {
      return { status: "failed", output: "Invalid input for objective_update: status: one of completed, blocked, cancelled" };
    }
    try {
      const updated = await actor.changeObjective({ status, note: typeof input.note === "string" ? input.note : undefined });
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
  await actor.waitForEvent({ source: "github", match: match as Record<string, unknown> });
  return { status: "completed", output: `The objective now waits for a github event matching ${JSON.stringify(match)}. End this slice; it continues when the event arrives.` };
}
