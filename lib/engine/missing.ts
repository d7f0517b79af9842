import type { OwnerContext } from "./engine-owner";
import fs from "node:fs";
import type { Conversation } from "../events/entities";

/** What a conversation needs that this machine lacks, e.g. after a move (DESIGN §2). */
export function missingParts(conversation: Pick<Conversation, "cwd" | "model" | "agent">, context: Pick<OwnerContext, "models" | "agent">): Conversation["missing"] {
  const missing: Conversation["missing"] = [];
  let isDirectory = false;
  try {
    isDirectory = fs.statSync(conversation.cwd).isDirectory();
  } catch {
    isDirectory = false;
  }
  if (!isDirectory) missing.push("cwd");
  if (!context.models.get(conversation.model)) missing.push("model");
  if (!context.agent(conversation.agent, conversation.cwd)) missing.push("agent");
  return missing;
}
