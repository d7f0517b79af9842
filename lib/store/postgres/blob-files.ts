import type { Pool, PoolClient } from "pg";
import { AtriumError } from "../../errors";
import { artifactPageOf, type ArtifactPage } from "../artifact-pages";
import type { AttachmentContent, ClaimedAttachments, ConversationFiles } from "../conversation-files";
import { assertId } from "../ids";
import type { AttachmentRef } from "../records";
import { attachmentFileName, checkedUpload, UNUSED_UPLOAD_HOURS, uploadNotFound } from "../uploads";
import { BLOB_CHUNK_BYTES, BlobStore } from "./blob-store";
import type { Lease } from "./leases";
import { LeaseLostError } from "./postgres-record-store";
import { inTransaction } from "./transaction";
import { moveBlob, uploadRowOf } from "./blob-moves";

/** Attachment bytes held for model input across conversations before the least recent are dropped. */
const HELD_BYTES = 64 * 1024 * 1024;

/** The owner of the blobs no conversation holds yet (as `atrium migrate` and export name them). */
export const UPLOADS = "uploads";

const attachmentBlob = (attachment: { id: string; name: string }) => `attachments/${attachmentFileName(attachment)}`;
const artifactBlob = (artifactId: string) => `artifacts/${assertId(artifactId, "artifact id")}`;

/**
 * The database backend of a conversation's files (DESIGN §10c), on BlobStore: uploads under the
 * owner "uploads" (any node writes and claims them, so an upload on node B is claimed by the owner
 * on A), attachments and artifacts under the conversation's id at the same relative paths as in a
 * conversation directory (what `migrate` writes and `export` reads). A write to a conversation
 * checks this node's lease in its own transaction, as a record append does: a former owner never
 * writes its files. A claim moves the upload's rows in one transaction (head deleted first, so of
 * two claims of one upload exactly one finds it). Blobs are whole or absent: chunks and head commit
 * together. Model input reads attachments synchronously: `prepareAttachments` holds the ones the
 * next request names (and only those) per conversation, and drops the least recently prepared
 * conversations' past HELD_BYTES (never the one being prepared).
 */
export class BlobFiles implements ConversationFiles {
  private readonly blobs: BlobStore;
  private readonly held = new Map<string, Map<string, Buffer>>();

  constructor(
    private readonly pool: Pool,
    private readonly nodeId: string,
    private readonly leaseOf: (conversationId: string) => Lease | null,
  ) {
    this.blobs = new BlobStore(pool);
  }

  async saveUpload(id: string, name: string, declaredType: string, data: Buffer, now: Date): Promise<AttachmentRef> {
    const attachment = checkedUpload(id, name, declaredType, data.length);
    await this.blobs.put(UPLOADS, `${id}-${attachment.name}`, data, attachment.mediaType, { createdAt: now });
    return attachment;
  }

  async checkUploads(ids: readonly string[]): Promise<void> {
    for (const raw of ids) {
      const id = assertId(raw, "attachment id");
      if (!(await uploadRowOf(this.pool, id))) throw uploadNotFound(id);
    }
  }

  /** A new conversation's id is this node's alone until its records are written: there is no lease to check yet. */
  claimUploads(conversationId: string, ids: readonly string[], options: { newConversation?: boolean } = {}): Promise<ClaimedAttachments> {
    return this.claim(conversationId, ids, options.newConversation ? null : conversationId);
  }

  async returnAttachments(conversationId: string, attachments: readonly AttachmentRef[], now: Date = new Date()): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      for (const attachment of attachments) {
        const path = attachmentBlob(attachment);
        await moveBlob(client, { owner: conversationId, path }, { owner: UPLOADS, path: path.slice("attachments/".length) }, now);
      }
    });
  }

  async openAttachment(conversationId: string, attachment: AttachmentRef): Promise<AttachmentContent | null> {
    const path = attachmentBlob(attachment);
    const head = await this.blobs.head(conversationId, path);
    if (!head) return null;
    const chunks = Math.max(1, Math.ceil(head.bytes / BLOB_CHUNK_BYTES));
    let next = 0;
    // One chunk (256 KiB) at a time: a 20 MiB attachment sent to many readers is never held whole.
    const body = new ReadableStream<Uint8Array<ArrayBuffer>>({
      pull: async (controller) => {
        const data = await this.blobs.read(conversationId, path, next * BLOB_CHUNK_BYTES, BLOB_CHUNK_BYTES);
        next += 1;
        if (data && data.length > 0) controller.enqueue(new Uint8Array(data));
        if (!data || next >= chunks) controller.close();
      },
    });
    return { bytes: head.bytes, body };
  }

  async prepareAttachments(conversationId: string, attachments: readonly AttachmentRef[]): Promise<void> {
    const before = this.held.get(conversationId) ?? new Map<string, Buffer>();
    const now = new Map<string, Buffer>();
    for (const attachment of attachments) {
      const path = attachmentBlob(attachment);
      const data = before.get(path) ?? (await this.blobs.read(conversationId, path));
      if (data) now.set(path, data);
    }
    // Re-inserted last: the Map's order is the order conversations were last prepared in.
    this.held.delete(conversationId);
    if (now.size > 0) this.held.set(conversationId, now);
    let total = [...this.held.values()].reduce((sum, held) => sum + [...held.values()].reduce((bytes, data) => bytes + data.length, 0), 0);
    for (const [other, held] of this.held) {
      if (total <= HELD_BYTES || other === conversationId) break;
      this.held.delete(other);
      for (const data of held.values()) total -= data.length;
    }
  }

  attachmentBytes(conversationId: string, attachment: AttachmentRef): Buffer | null {
    return this.held.get(conversationId)?.get(attachmentBlob(attachment)) ?? null;
  }

  async writeArtifact(conversationId: string, artifactId: string, text: string): Promise<void> {
    await this.blobs.put(conversationId, artifactBlob(artifactId), Buffer.from(text), "text/plain; charset=utf-8", {
      check: (client) => this.checkLease(client, conversationId),
    });
  }

  async readArtifactPage(conversationId: string, artifactId: string, page: number): Promise<ArtifactPage | null> {
    const data = await this.blobs.read(conversationId, artifactBlob(artifactId));
    return data ? artifactPageOf(data, artifactId, page) : null;
  }

  /** Fork: the files the copied items name, copied row by row inside the database (never through a node). */
  async copyFiles(fromId: string, toId: string, paths: readonly string[]): Promise<void> {
    if (paths.length === 0) return;
    await inTransaction(this.pool, async (client) => {
      const heads = await client.query<{ path: string }>(
        `INSERT INTO atrium_blob_heads (owner, path, bytes, media_type, sha256, created_at)
           SELECT $2, path, bytes, media_type, sha256, created_at FROM atrium_blob_heads WHERE owner = $1 AND path = ANY($3)
         ON CONFLICT DO NOTHING RETURNING path`,
        [fromId, toId, paths],
      );
      await client.query(
        "INSERT INTO atrium_blob_chunks (owner, path, chunk, data) SELECT $2, path, chunk, data FROM atrium_blob_chunks WHERE owner = $1 AND path = ANY($3)",
        [fromId, toId, heads.rows.map((row) => row.path)],
      );
    });
  }

  async removeConversation(conversationId: string): Promise<void> {
    this.held.delete(conversationId);
    await this.blobs.removeOwner(conversationId);
  }

  /** Every node sweeps; a sweep is one transaction, so two at once remove each upload once. */
  async removeStaleUploads(now: Date): Promise<number> {
    return inTransaction(this.pool, async (client) => {
      const gone = await client.query<{ path: string }>(
        "DELETE FROM atrium_blob_heads WHERE owner = $1 AND created_at <= $2::timestamptz - make_interval(hours => $3) RETURNING path",
        [UPLOADS, now.toISOString(), UNUSED_UPLOAD_HOURS],
      );
      const paths = gone.rows.map((row) => row.path);
      if (paths.length > 0) await client.query("DELETE FROM atrium_blob_chunks WHERE owner = $1 AND path = ANY($2)", [UPLOADS, paths]);
      return paths.length;
    });
  }

  /** Drops what is held for model input (the owner left this node). */
  forget(conversationId: string): void {
    this.held.delete(conversationId);
  }

  private async claim(conversationId: string, ids: readonly string[], fencedBy: string | null): Promise<ClaimedAttachments> {
    const attachments = await inTransaction(this.pool, async (client) => {
      if (fencedBy) await this.checkLease(client, fencedBy);
      const claimed: AttachmentRef[] = [];
      for (const raw of ids) {
        const id = assertId(raw, "attachment id");
        const upload = await uploadRowOf(client, id);
        const moved = upload && (await moveBlob(client, { owner: UPLOADS, path: upload.path }, { owner: conversationId, path: `attachments/${upload.path}` }, null));
        if (!upload || !moved) throw uploadNotFound(id);
        const name = upload.path.slice(id.length + 1);
        claimed.push({ id, name, mediaType: upload.media_type, bytes: Number(upload.bytes) });
      }
      return claimed;
    });
    return {
      attachments,
      forget: async () => undefined,
      giveBack: () => this.returnAttachments(conversationId, attachments),
    };
  }

  /**
   * The write's transaction holds this node's live lease on the conversation (shared lock: a taker
   * waits for it to end); refused as a record append is: node_unavailable, the request may be retried.
   */
  private async checkLease(client: PoolClient, conversationId: string): Promise<void> {
    const lease = this.leaseOf(conversationId);
    const held = lease
      ? await client.query(
          "SELECT 1 FROM atrium_leases WHERE conversation_id = $1 AND node_id = $2 AND epoch = $3 AND expires_at > clock_timestamp() FOR SHARE",
          [conversationId, this.nodeId, lease.epoch],
        )
      : null;
    if (held?.rowCount) return;
    throw new AtriumError("node_unavailable", `this node no longer holds conversation ${conversationId}; retry the request`, {
      cause: new LeaseLostError(conversationId, lease?.epoch ?? null),
    });
  }
}
