import type { Conversation } from "@/lib/events/entities";
import type { ListEvent } from "@/lib/events/events";
import type { Lineage, Version } from "./lineage";

/** Where the open conversation sits: its id and title, and for a restart the parent and message it restarts. */
export interface LineagePlace {
  id: string;
  title: string;
  parentId: string | null;
  restartOf: string | null;
}

function upsert(versions: Version[], conversation: Conversation): Version[] {
  const version = { id: conversation.id, title: conversation.title };
  if (!versions.some((candidate) => candidate.id === conversation.id)) return [...versions, version];
  return versions.map((candidate) => (candidate.id === conversation.id ? version : candidate));
}

function renamed(versions: Version[], conversation: Conversation): Version[] {
  return versions.some((candidate) => candidate.id === conversation.id && candidate.title !== conversation.title) ? upsert(versions, conversation) : versions;
}

/**
 * The lineage after a list event (issue 26: ‹ n/m › live across tabs): a restart made anywhere of
 * one of this conversation's messages, or of the message this restart restarts, joins its versions
 * as the newest; renames and deletions follow. Returns the same object when nothing changed.
 */
export function lineageAfter(lineage: Lineage, place: LineagePlace, event: ListEvent): Lineage {
  if (event.type === "conversation.deleted") {
    const gone = (versions: Version[]) => versions.some((version) => version.id === event.conversationId);
    const without = (versions: Version[]) => versions.filter((version) => version.id !== event.conversationId);
    const touched = Object.values(lineage.restarted).some(gone) || (lineage.siblings !== null && gone(lineage.siblings));
    if (!touched) return lineage;
    return {
      restarted: Object.fromEntries(Object.entries(lineage.restarted).map(([messageId, versions]) => [messageId, without(versions)])),
      siblings: lineage.siblings && without(lineage.siblings),
    };
  }
  if (event.type !== "conversation.created" && event.type !== "conversation.updated") return lineage;
  const conversation = event.conversation;
  const parentId = conversation.forkedFrom?.conversationId ?? null;
  const restartOf = conversation.restartOf ?? null;
  let restarted = lineage.restarted;
  let siblings = lineage.siblings;
  if (restartOf && parentId === place.id) {
    const versions = restarted[restartOf] ?? [{ id: place.id, title: place.title }];
    restarted = { ...restarted, [restartOf]: upsert(versions, conversation) };
  } else {
    restarted = Object.fromEntries(Object.entries(restarted).map(([messageId, versions]) => [messageId, renamed(versions, conversation)]));
  }
  if (siblings && place.restartOf && restartOf === place.restartOf && parentId === place.parentId) siblings = upsert(siblings, conversation);
  else if (siblings) siblings = renamed(siblings, conversation);
  const same = siblings === lineage.siblings && Object.keys(restarted).every((key) => restarted[key] === lineage.restarted[key]) && Object.keys(restarted).length === Object.keys(lineage.restarted).length;
  return same ? lineage : { restarted, siblings };
}
