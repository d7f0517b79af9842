import type { OwnerContext } from "./engine-owner";
import { isDirectory } from "./conversation-patch";
import path from "node:path";
import type { AgentDefinition } from "../agents/definitions";
import { AtriumError, storageError } from "../errors";
import { IndexBehindError } from "../store/index-catch-up";
import { ConversationStaging } from "../store/conversation-staging";
import type { AttachmentRef, Effort } from "../store/records";
import type { Store } from "../store/store";
import type { ConversationActor } from "./conversation-actor";
import type { MessageInput, MessageOutcome } from "../ports/owner-port";
import { titleFromMessage } from "./titles";

export interface CreateConversationInput {
  text: string;
  attachments?: string[];
  agent?: string;
  model?: string;
  effort?: Effort;
  cwd?: string;
  /** DESIGN §10b: where its machine work runs; default `local`. */
  machine?: string;
  requestKey?: string;
}

export interface StagedConversation {
  conversationId: string;
  rootSessionId: string;
  attachments: AttachmentRef[] | undefined;
}

/**
 * Creation, step one (DESIGN §2): everything is checked (agent, model, working directory,
 * attachments) before anything is written, then the conversation's directory is built under a
 * staging name and renamed into place whole. Nothing of a failed creation stays.
 */
export async function stageNewConversation(
  context: OwnerContext,
  input: CreateConversationInput,
  keyed: { requestKey?: string; requestHash?: string },
): Promise<StagedConversation> {
  const { store, config, models } = context;
  const agentName = input.agent ?? "default";
  // The cwd first: its project agents (.atrium/agents) are part of the lookup. It is checked on its machine.
  const machine = input.machine ?? "local";
  const cwd = context.machines ? await context.machines.resolveCwd(machine, input.cwd) : path.resolve(input.cwd ?? config.defaultCwd);
  if (!context.machines && !isDirectory(cwd)) throw new AtriumError("missing_cwd", `the working directory ${cwd} does not exist`);
  const agent: AgentDefinition | undefined = context.agent(agentName, { machine, cwd });
  if (!agent) throw new AtriumError("missing_agent", `no agent named "${agentName}" is defined`);
  const model = input.model ?? agent.model ?? config.defaultModel;
  if (!models.get(model)) throw new AtriumError("missing_model", `no model "${model}" is configured`);
  const effort = models.get(model)?.effort ? (input.effort ?? null) : null;
  if (input.attachments?.length) await store.files.checkUploads(input.attachments);
  const conversationId = store.newId();
  const rootSessionId = store.newId();
  const staging = ConversationStaging.begin(store, conversationId);
  try {
    await staging.appendMetadata({
      type: "conversation.created",
      conversationId,
      title: titleFromMessage(input.text),
      titleSource: "auto",
      agent: agentName,
      model,
      effort,
      cwd,
      executor: machine,
      rootSessionId,
      forkedFrom: null,
      ...keyed,
    });
    await staging.appendMetadata({ type: "session.created", sessionId: rootSessionId, agent: agentName, model, parentSessionId: null, depth: 0 });
    const attachments = input.attachments?.length ? await staging.claimUploads(input.attachments) : undefined;
    await staging.commit();
    return { conversationId, rootSessionId, attachments };
  } catch (error) {
    await staging.abandon();
    throw storageError(error, "the new conversation");
  }
}

/** A created conversation whose first message could not be recorded goes, with its requestKey; its uploads go back. */
export async function discardNewConversation(context: OwnerContext, conversationId: string, attachments: readonly AttachmentRef[]): Promise<void> {
  const { store } = context;
  await store.closeConversation(conversationId);
  await store.files.returnAttachments(conversationId, attachments, store.now());
  await store.retireNewConversation(conversationId);
}

/** A message that names uploads claims them; if it cannot be recorded they go back, so a retry may claim them again. */
export async function sendWithUploads(store: Store, actor: ConversationActor, message: MessageInput, uploadIds: readonly string[] | undefined): Promise<MessageOutcome> {
  actor.ensureAlive();
  const claimed = uploadIds?.length ? await store.files.claimUploads(actor.id, uploadIds) : null;
  const attachments = claimed?.attachments.length ? claimed.attachments : undefined;
  try {
    const outcome = await actor.sendMessage({ ...message, attachments });
    await claimed?.forget();
    return outcome;
  } catch (error) {
    // A message recorded while only the index failed keeps its attachments: its records name them.
    if (error instanceof IndexBehindError) await claimed?.forget();
    else await claimed?.giveBack();
    throw error;
  }
}
