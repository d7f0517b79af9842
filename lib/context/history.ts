import type { FilePart, ImagePart, ModelMessage, TextPart } from "ai";
import type { Item } from "../events/entities";

export type UserPart = TextPart | ImagePart | FilePart;

export interface HistoryOptions {
  /** Turns a message's attachments into parts the model accepts, or text notes. */
  attachmentParts?: (item: Item) => UserPart[];
  /**
   * Reasoning models whose reasoning is sent back (DESIGN §7): every turn's reasoning, or
   * only the current turn's. Without it reasoning is not sent.
   */
  reasoning?: { mode: "all_turns" | "current_turn"; currentTurnId: string | null };
}

/**
 * Turns one session's items into the messages a model sees. Failed partial
 * attempts (a dropped stream that was retried) and reasoning are not sent back.
 */
export function itemsToMessages(items: readonly Item[], options: HistoryOptions = {}): ModelMessage[] {
  const messages: ModelMessage[] = [];
  for (const item of items) {
    switch (item.kind) {
      case "user_message":
        if (item.attachments?.length && options.attachmentParts) {
          messages.push({ role: "user", content: [{ type: "text", text: item.text ?? "" }, ...options.attachmentParts(item)] });
        } else {
          messages.push({ role: "user", content: item.text ?? "" });
        }
        break;
      case "assistant_message":
        if (item.status === "failed" || !item.text) break;
        messages.push({ role: "assistant", content: [{ type: "text", text: item.text }] });
        break;
      case "tool_call": {
        if (item.status === "waiting" || item.status === "streaming") break;
        const toolCallId = toolCallIdOf(item);
        messages.push({
          role: "assistant",
          content: [{ type: "tool-call", toolCallId, toolName: item.toolName ?? "unknown", input: item.input ?? {} }],
        });
        messages.push({
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId,
              toolName: item.toolName ?? "unknown",
              output: { type: "text", value: toolResultText(item) },
            },
          ],
        });
        break;
      }
      case "notice":
        messages.push({ role: "user", content: `[Atrium notice] ${item.text ?? ""}` });
        break;
      case "subagent_report":
        messages.push({ role: "user", content: `[Report from subagent ${item.fromSessionId ?? ""}] ${item.text ?? ""}` });
        break;
      case "compaction_summary":
        messages.push({ role: "user", content: item.text ?? "" });
        break;
      case "reasoning": {
        const reasoning = options.reasoning;
        if (!reasoning || item.status !== "completed") break;
        if (reasoning.mode === "current_turn" && item.turnId !== reasoning.currentTurnId) break;
        messages.push({
          role: "assistant",
          content: [{ type: "reasoning", text: item.text ?? "", providerOptions: item.providerMetadata as never }],
        });
        break;
      }
    }
  }
  return messages;
}

export function toolCallIdOf(item: Item): string {
  return item.toolCallId ?? `call_${item.id}`;
}

function toolResultText(item: Item): string {
  const output = item.output ?? "";
  switch (item.status) {
    case "denied":
      return output || "The owner denied this tool call.";
    case "interrupted":
      return `${output}\n[interrupted before it finished]`.trim();
    case "unknown":
      return `${output}\n[outcome unknown: the server stopped while this ran. Inspect the current state before repeating it.]`.trim();
    default:
      return output;
  }
}
