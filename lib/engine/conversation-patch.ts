import path from "node:path";
import { AtriumError } from "../errors";
import type { Conversation } from "../events/entities";
import type { ModelRegistry } from "../models/registry";
import type { Effort } from "../store/records";
import fs from "node:fs";

export interface ConversationPatch {
  title?: string;
  archived?: boolean;
  protected?: boolean;
  model?: string;
  effort?: Effort;
  cwd?: string;
  /** DESIGN §10b: move an idle conversation to another machine; its cwd is then checked there first (machine-move). */
  machine?: string;
}

/** What a PATCH actually changes, checked (a title, a configured model, an existing directory); empty when nothing does. */
export function conversationChanges(
  current: Omit<Conversation, "missing">,
  patch: ConversationPatch,
  models: ModelRegistry,
): Omit<ConversationPatch, "machine"> & { titleSource?: "owner"; executor?: string } {
  const changes: Omit<ConversationPatch, "machine"> & { titleSource?: "owner"; executor?: string } = {};
  if (patch.title !== undefined && patch.title !== current.title) {
    const title = patch.title.trim();
    if (title === "") throw new AtriumError("bad_request", "title must not be empty");
    changes.title = title.slice(0, 200);
    changes.titleSource = "owner";
  }
  if (patch.archived !== undefined && patch.archived !== current.archived) changes.archived = patch.archived;
  if (patch.protected !== undefined && patch.protected !== current.protected) changes.protected = patch.protected;
  if (patch.model !== undefined && patch.model !== current.model) {
    if (!models.get(patch.model)) throw new AtriumError("missing_model", `no model "${patch.model}" is configured`);
    changes.model = patch.model;
  }
  if (patch.effort !== undefined && patch.effort !== current.effort) changes.effort = patch.effort;
  const machine = patch.machine ?? current.machine;
  if (patch.machine !== undefined && patch.machine !== current.machine) changes.executor = patch.machine;
  if (patch.cwd !== undefined && patch.cwd !== current.cwd && machine !== "local") {
    // Already checked on that machine (machine-move.ts): the path is the machine's, not this host's.
    changes.cwd = patch.cwd;
  } else if (patch.cwd !== undefined && patch.cwd !== current.cwd) {
    const cwd = path.resolve(patch.cwd);
    if (!isDirectory(cwd)) throw new AtriumError("missing_cwd", `the working directory ${cwd} does not exist`);
    changes.cwd = cwd;
  }
  return changes;
}

/** Sending needs what the conversation names to exist on this machine (DESIGN §2, moving). */
export function assertUsable(conversation: Conversation): void {
  if (conversation.missing.includes("machine")) {
    throw new AtriumError("machine_offline", `the machine of this conversation is offline; start \`atrium machine connect\` there or pick another machine`);
  }
  if (conversation.missing.includes("cwd")) {
    throw new AtriumError("missing_cwd", `the working directory ${conversation.cwd} does not exist on this machine; pick another one`);
  }
  if (conversation.missing.includes("model")) {
    throw new AtriumError("missing_model", `the model "${conversation.model}" is not configured on this machine; pick another one`);
  }
  if (conversation.missing.includes("agent")) {
    throw new AtriumError("missing_agent", `the agent "${conversation.agent}" is not defined on this machine`);
  }
}

export function isDirectory(directory: string): boolean {
  try {
    return fs.statSync(directory).isDirectory();
  } catch {
    return false;
  }
}
