import { and, desc, eq, like, lt } from "drizzle-orm";
import { z } from "zod";
import { AtriumError, isAtriumError, notFound } from "../errors";
import { attachmentSchema, type Attachment, type Turn, type Waiting } from "../events/entities";
import { assertId } from "../store/ids";
import type { AttachmentContent } from "../store/conversation-files";
import * as queries from "../store/queries";
import * as tables from "../store/schema";
import type { Store } from "../store/store";
import { listTurnSubset, type TurnSubset } from "../store/turn-subset";
import type { ItemsPage, ItemsQuery } from "./item-pages";

/**
 * Reads of a conversation another node of the cluster holds (DESIGN §10c), for this node's pages:
 * from this node's index alone, which the database's feed keeps up with every node's records. A
 * streaming item shows the text of its last progress record; the page's live stream, which
 * follows the holder, brings the rest. The API's own reads of such a conversation are passed to
 * its holder instead and never come here, but for its files, which any node reads from the database.
 */
const MAX_LIMIT = 500;

export function indexedItemsPage(store: Store, conversationId: string, query: ItemsQuery): ItemsPage {
  const row = queries.conversationRow(store.index, conversationId);
  if (!row) throw new AtriumError("not_found", `conversation ${conversationId} was not found`);
  const sessionId = query.session ?? row.rootSessionId;
  const limit = Math.min(query.limit ?? 100, MAX_LIMIT);
  if (query.around !== undefined || query.q !== undefined) {
    throw new AtriumError("node_unavailable", `conversation ${conversationId} is held by another node; ask its API`);
  }
  if (query.before === undefined && query.tail === undefined) return queries.listItems(store.index, sessionId, query.after ?? 0, limit);
  const { items } = tables;
  const before = query.before ?? Number.MAX_SAFE_INTEGER;
  const rows = store.index
    .select()
    .from(items)
    .where(and(eq(items.sessionId, sessionId), lt(items.seq, before)))
    .orderBy(desc(items.seq))
    .limit(limit + 1)
    .all();
  const page = rows.slice(0, limit).reverse().map(queries.toItem);
  return { items: page, nextCursor: rows.length > limit ? page[0].seq : null };
}

export function indexedTurns(store: Store, conversationId: string, subset?: TurnSubset): Turn[] {
  return subset ? listTurnSubset(store.index, conversationId, subset) : queries.listTurns(store.index, conversationId);
}

export function indexedWaiting(store: Store, conversationId: string): Waiting[] {
  return queries.listWaiting(store.index, conversationId).map(({ id, text, mode, createdAt, sessionId, origin }) => ({ id, text, mode, createdAt, sessionId, origin }));
}

/**
 * An attachment some message of the conversation carries, found in this node's index, its bytes
 * read from the database (DESIGN §10c): the holder's access rule without asking the holder.
 */
export async function openIndexedAttachment(store: Store, conversationId: string, attachmentId: string): Promise<{ attachment: Attachment; content: AttachmentContent }> {
  // An id with % or _ would make the LIKE below match anything (a full scan): only real ids get there.
  assertId(attachmentId, "attachment id");
  if (!queries.conversationRow(store.index, conversationId)) throw notFound("conversation", conversationId);
  const { items } = tables;
  const rows = store.index
    .select({ attachments: items.attachments })
    .from(items)
    .where(and(eq(items.conversationId, conversationId), like(items.attachments, `%${attachmentId}%`)))
    .all();
  const attachment = rows.flatMap((row) => indexedAttachments(row.attachments)).find((candidate) => candidate.id === attachmentId);
  if (!attachment) throw new AtriumError("not_found", `attachment ${attachmentId} was not found in this conversation`);
  const content = await store.files.openAttachment(conversationId, attachment);
  if (!content) throw new AtriumError("not_found", `the file of attachment ${attachmentId} is missing in the cluster's database`);
  return { attachment, content };
}

const indexedAttachmentsSchema = z.array(attachmentSchema);

/** The attachments column of an indexed item: a list this version cannot read counts as none. */
function indexedAttachments(column: string | null): Attachment[] {
  if (!column) return [];
  const parsed = indexedAttachmentsSchema.safeParse(JSON.parse(column));
  return parsed.success ? parsed.data : [];
}

/**
 * A read on a node that does not hold the conversation (DESIGN §10c): this node's index is first
 * given every record written so far by any node (a message the client saw through the holder's live
 * stream, or the conversation's deletion), then read once. A database error answers 503
 * node_unavailable, never 500.
 */
export async function readCaughtUp<T>(read: () => Promise<T>, catchUp: () => Promise<void>): Promise<T> {
  try {
    await catchUp();
    return await read();
  } catch (error) {
    if (isAtriumError(error)) throw error;
    throw new AtriumError("node_unavailable", "this node could not read the conversation's files from the cluster's database; retry", { cause: error });
  }
}
