import type { Item } from "../events/entities";
import type { TurnHandle } from "../ports/owner-port";
import type { ToolContext, ToolResult } from "./tool";

/**
 * What a tool acting on the conversation itself gets besides the usual context: the running
 * turn, through the owner's port (park it, ask, spawn, complete …). Its input is parsed once, by
 * its own schema, before execute sees it, like every other tool's.
 */
export interface ConversationToolContext extends ToolContext {
  turn: TurnHandle;
  /** The tool call being run. */
  item: Item;
}

export function ok(output: string): ToolResult {
  return { status: "completed", output };
}

export function failed(output: string): ToolResult {
  return { status: "failed", output };
}
