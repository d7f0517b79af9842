import { AtriumError, isAtriumError, notFound } from "../errors";
import type { Attachment } from "../events/entities";
import { assertId } from "../store/ids";
import type { AttachmentContent } from "../store/conversation-files";
import type { IndexReads } from "../store/index-reads";
import type { Store } from "../store/store";

/**
 * Reads of the files of a conversation another node of the cluster holds (DESIGN §10c), which any
 * node reads from the database: the attachment found in the cluster's index tables, with the
 * holder's access rule (a message of this conversation carries it), without asking the holder.
 */
export async function openIndexedAttachment(store: Store, index: IndexReads, conversationId: string, attachmentId: string): Promise<{ attachment: Attachment; content: AttachmentContent }> {
  // An id with % or _ would make the index's LIKE match anything (a full scan): only real ids get there.
  assertId(attachmentId, "attachment id");
  if (!(await index.conversationRow(conversationId))) throw notFound("conversation", conversationId);
  const attachment = await index.attachment(conversationId, attachmentId);
  if (!attachment) throw new AtriumError("not_found", `attachment ${attachmentId} was not found in this conversation`);
  const content = await store.files.openAttachment(conversationId, attachment);
  if (!content) throw new AtriumError("not_found", `the file of attachment ${attachmentId} is missing in the cluster's database`);
  return { attachment, content };
}

/** A read of the cluster's database on a node that does not hold the conversation: a database error answers 503 node_unavailable, never 500. */
export async function readFromDatabase<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (isAtriumError(error)) throw error;
    throw new AtriumError("node_unavailable", "this node could not read the conversation's files from the cluster's database; retry", { cause: error });
  }
}
