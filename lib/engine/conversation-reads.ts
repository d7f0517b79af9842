import type { ArtifactPage } from "../context/artifacts";
import type { AttachmentContent } from "../store/conversation-files";
import { AtriumError } from "../errors";
import type { Attachment, Conversation, Session, Turn } from "../events/entities";
import * as queries from "../store/queries";
import { listTurnSubset, type TurnSubset } from "../store/turn-subset";
import type { Store } from "../store/store";
import { attachmentPath } from "../store/uploads";
import type { ConversationActor } from "./conversation-actor";
import type { MessageOutcome } from "../ports/owner-port";
import type { KeyReference } from "./request-keys";

/** Reads that merge the index with what only the owner knows (partial text, running turns). */

export function turnsWithLive(store: Store, actor: ConversationActor, subset?: TurnSubset): Turn[] {
  const live = new Map(actor.runningTurns().map((turn) => [turn.id, turn]));
  const turns = subset ? listTurnSubset(store.index, actor.id, subset) : queries.listTurns(store.index, actor.id);
  return turns.map((turn) => live.get(turn.id) ?? turn);
}

/** A turn whose start is still being flushed (its loop may already run) is not shown: it may never have been (runningTurns). */
export function sessionsWithStatus(store: Store, actor: ConversationActor): Session[] {
  return queries.listSessions(store.index, actor.id).map((session) => {
    const runner = actor.sessions.get(session.id)?.runner;
    return { ...session, status: liveStatus(runner?.onRecord ? runner.turn.status : undefined) };
  });
}

/** The file of an attachment some message of this conversation carries. */
export function findAttachment(store: Store, actor: ConversationActor, attachmentId: string): { path: string; attachment: Attachment } {
  for (const session of actor.sessions.values()) {
    for (const item of session.items) {
      const attachment = item.attachments?.find((candidate) => candidate.id === attachmentId);
      if (attachment) return { path: attachmentPath(store.paths, actor.id, attachment), attachment };
    }
  }
  throw new AtriumError("not_found", `attachment ${attachmentId} was not found in this conversation`);
}

/** The answer a repeated create's requestKey gets: the conversation it created and its first turn. */
export function replayCreation(store: Store, conversation: Conversation): { conversation: Conversation; message: { id: string }; turn: Turn } {
  const turn = queries.listTurns(store.index, conversation.id, conversation.rootSessionId)[0];
  return { conversation, message: { id: turn?.inputMessageIds[0] ?? "" }, turn };
}

/** The answer a repeated requestKey gets: what the first request created. */
export function replayMessage(store: Store, actor: ConversationActor, reference: KeyReference, mode: MessageOutcome["message"]["mode"]): MessageOutcome {
  if (reference.kind === "turn.started") {
    return {
      message: { id: String(reference.messageId), mode, status: "started" },
      turn: queries.getTurn(store.index, String(reference.turnId)),
    };
  }
  const queued = reference.mode as string;
  const status = queued === "steer" ? "steered" : queued === "jump" ? "jumped" : "queued";
  const joined = typeof reference.turnId === "string" ? reference.turnId : null;
  const live = joined ? actor.runningTurns().find((turn) => turn.id === joined) : undefined;
  return {
    message: { id: String(reference.messageId), mode, status },
    turn: joined ? (live ?? queries.getTurn(store.index, joined)) : null,
  };
}

/** An attachment's bytes, from wherever the conversation's files are (the disk, or a cluster's database). */
export async function openAttachment(store: Store, actor: ConversationActor, attachmentId: string): Promise<{ attachment: Attachment; content: AttachmentContent }> {
  const { attachment } = findAttachment(store, actor, attachmentId);
  const content = await store.files.openAttachment(actor.id, attachment);
  if (!content) throw new AtriumError("not_found", `the file of attachment ${attachmentId} is missing on this machine`);
  return { attachment, content };
}

export async function readArtifact(store: Store, conversationId: string, artifactId: string, page: number): Promise<ArtifactPage> {
  const found = await store.files.readArtifactPage(conversationId, artifactId, page);
  if (!found) throw new AtriumError("not_found", `artifact ${artifactId} was not found in this conversation`);
  if (page > found.artifact.pages) throw new AtriumError("not_found", `artifact ${artifactId} has ${found.artifact.pages} pages`);
  return found;
}

function liveStatus(status: Turn["status"] | undefined): Session["status"] {
  if (status === "running") return "running";
  if (status === "waiting_approval" || status === "waiting_user") return "waiting";
  return "idle";
}
