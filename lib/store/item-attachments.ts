import { and, eq, like } from "drizzle-orm";
import { z } from "zod";
import type { IndexDatabase } from "./database";
import { attachmentSchema, type Attachment } from "./entities";
import * as tables from "./schema";

const indexedAttachmentsSchema = z.array(attachmentSchema);

/** The attachments column of an indexed item: a list this version cannot read counts as none. */
export function indexedAttachments(column: string | null): Attachment[] {
  if (!column) return [];
  const parsed = indexedAttachmentsSchema.safeParse(JSON.parse(column));
  return parsed.success ? parsed.data : [];
}

/** The attachment with this id among the attachments columns of a conversation's items (null: none carries it). */
export function attachmentAmong(columns: Array<string | null>, attachmentId: string): Attachment | null {
  return columns.flatMap(indexedAttachments).find((candidate) => candidate.id === attachmentId) ?? null;
}

/**
 * An attachment some message of the conversation carries, as the index has it. The id must be a
 * checked id (assertId): one with % or _ would make the LIKE match anything (a full scan).
 */
export function itemAttachment(db: IndexDatabase, conversationId: string, attachmentId: string): Attachment | null {
  const { items } = tables;
  const rows = db
    .select({ attachments: items.attachments })
    .from(items)
    .where(and(eq(items.conversationId, conversationId), like(items.attachments, `%${attachmentId}%`)))
    .all();
  return attachmentAmong(rows.map((row) => row.attachments), attachmentId);
}
