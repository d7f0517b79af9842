import type { OwnerContext } from "./engine-owner";
import fs from "node:fs";
import type { Conversation } from "../events/entities";

/** What a conversation needs that this machine lacks, e.g. after a move (DESIGN §2). */
export function missingParts(
  conversation: Pick<Conversation, "cwd" | "model" | "agent"> & { machine?: string },
  context: Pick<OwnerContext, "models" | "agent" | "machines">,
): Conversation["missing"] {
  const missing: Conversation["missing"] = [];
  let isDirectory = false;
  try {
    isDirectory = fs.statSync(conversation.cwd).isDirectory();
  } catch {
    isDirectory = false;
  }
  const machine = conversation.machine ?? "local";
  const machines = context.machines;
  if (machines && !machines.isOnline(machine)) missing.push("machine");
  // A linked machine's cwd is checked there, when the conversation is created or moved.
  else if (!isDirectory && (!machines || machines.isLocal(machine))) missing.push("cwd");
  if (!context.models.get(conversation.model)) missing.push("model");
  if (!context.agent(conversation.agent, conversation)) missing.push("agent");
  return missing;
}
