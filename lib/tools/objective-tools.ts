import { isAtriumError } from "../errors";
import { failed, ok, type ConversationToolContext } from "./conversation-tool";
import type { ToolResult } from "./tool";

/** objective_update (DESIGN §6), for the root agent's turns: the same command as the owner's PATCH …/objective. */
export async function updateObjective(input: { status: "completed" | "blocked" | "cancelled"; note?: string }, { turn }: ConversationToolContext): Promise<ToolResult> {
  const objective = turn.actor.objective();
  if (!objective || objective.status !== "open") return failed("There is no open objective in this conversation.");
  try {
    const updated = await turn.actor.changeObjective({ status: input.status, note: input.note });
    return ok(`Objective ${updated.status}.`);
  } catch (error) {
    if (isAtriumError(error)) return failed(error.message);
    throw error;
  }
}

/** wait_for_event: the open objective sleeps until a matching webhook event arrives. */
export async function waitForEvent(input: { source: "github"; match: Record<string, string | number | boolean> }, { turn }: ConversationToolContext): Promise<ToolResult> {
  const objective = turn.actor.objective();
  if (!objective || objective.status !== "open") return failed("There is no open objective in this conversation.");
  if (Object.keys(input.match).length === 0) return failed('Invalid input for wait_for_event: give source "github" and a non-empty match object');
  try {
    await turn.actor.waitForEvent({ source: "github", match: input.match });
  } catch (error) {
    if (isAtriumError(error)) return failed(error.message);
    throw error;
  }
  return ok(`The objective now waits for a github event matching ${JSON.stringify(input.match)}. End this slice; it continues when the event arrives.`);
}
