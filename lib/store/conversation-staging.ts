import fs from "node:fs";
import path from "node:path";
import { isIndexDiskFault, storageError } from "../errors";
import { assertId } from "./ids";
import { ingestConversation, type IngestOutcome } from "./ingest";
import { JsonlAppender } from "./jsonl-appender";
import type { Store } from "./store";
import type { NewRecord } from "./store-cluster";
import { claimUpload, returnUpload, type ClaimedUpload } from "./uploads";
import type { ClaimedAttachments } from "./conversation-files";
import type { AttachmentRef, MetadataRecordBody, SessionRecordBody } from "./records";

const STAGING_PREFIX = ".staging-";

/**
 * A new conversation (create, fork) built whole under a staging name and renamed into place
 * (DESIGN §2): a failure or a crash part-way leaves no half-made conversation behind, and its
 * requestKey, written with its first record, becomes known only with the complete directory.
 */
export class ConversationStaging {
  private readonly appenders = new Map<string, Promise<JsonlAppender<object, { seq: number }>>>();
  private readonly claimed: ClaimedUpload[] = [];
  /** On a node of a cluster: uploads claimed in the database, given back if the creation is abandoned. */
  private readonly claimedBlobs: ClaimedAttachments[] = [];
  /** On a node of a cluster: the records, written in one statement at commit. */
  private readonly records: NewRecord[] = [];

  private constructor(
    private readonly store: Store,
    readonly conversationId: string,
    readonly directory: string,
  ) {}

  static begin(store: Store, conversationId: string): ConversationStaging {
    const directory = path.join(store.paths.conversations, `${STAGING_PREFIX}${assertId(conversationId, "conversation id")}`);
    // A node of a cluster writes nothing of a conversation on its disk (DESIGN §10c).
    if (store.cluster) return new ConversationStaging(store, conversationId, directory);
    fs.rmSync(directory, { recursive: true, force: true });
    fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
    return new ConversationStaging(store, conversationId, directory);
  }

  /** Staging directories left by a crash are never complete conversations: removed at start. */
  static removeLeftovers(store: Store): void {
    for (const name of fs.readdirSync(store.paths.conversations)) {
      if (name.startsWith(STAGING_PREFIX)) fs.rmSync(path.join(store.paths.conversations, name), { recursive: true, force: true });
    }
  }

  async appendMetadata(body: MetadataRecordBody): Promise<void> {
    if (this.store.cluster) this.records.push({ stream: "metadata", body });
    else await this.append("metadata.jsonl", body);
  }

  async appendSession(sessionId: string, body: SessionRecordBody): Promise<void> {
    if (this.store.cluster) this.records.push({ stream: assertId(sessionId, "session id"), body });
    else await this.append(`${assertId(sessionId, "session id")}.jsonl`, body);
  }

  /** Copies a file of another conversation (artifact, attachment) to the same relative place. */
  copyFile(from: string, relative: string): void {
    const target = path.join(this.directory, relative);
    fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
    fs.copyFileSync(from, target);
    fs.chmodSync(target, 0o600);
  }

  /** Moves uploads into the conversation; a staging that is abandoned gives them back. */
  async claimUploads(ids: readonly string[]): Promise<AttachmentRef[]> {
    if (this.store.cluster) {
      const claimed = await this.store.files.claimUploads(this.conversationId, ids, { newConversation: true });
      this.claimedBlobs.push(claimed);
      return claimed.attachments;
    }
    return ids.map((id) => {
      const claimed = claimUpload(this.store.paths, id, path.join(this.directory, "attachments"));
      this.claimed.push(claimed);
      return claimed.attachment;
    });
  }

  /**
   * Flushes everything, renames the directory into place and indexes it in the same tick (so it
   * is never seen unindexed), then flushes the parent (a failure there takes it back out). The
   * directory flushes run off the event loop: a turn start must not hold up every other turn's deltas for a disk round trip.
   */
  async commit(): Promise<void> {
    if (this.store.cluster) return this.commitToCluster();
    const closing = [...this.appenders.values()].map(async (appender) => (await appender).close());
    await Promise.all(closing);
    const target = this.store.paths.conversation(this.conversationId);
    try {
      for (const sub of ["attachments", "artifacts"]) {
        const directory = path.join(this.directory, sub);
        if (fs.existsSync(directory)) await this.store.fs.flushDirectory(directory);
      }
      await this.store.fs.flushDirectory(this.directory);
      this.store.fs.rename(this.directory, target);
    } catch (error) {
      throw storageError(error, `conversation ${this.conversationId}`);
    }
    let outcome: IngestOutcome;
    try {
      outcome = ingestConversation(this.store, this.conversationId, { fresh: true });
    } catch (error) {
      // An index too full (or broken) to take it: the transaction rolled back, so the directory goes back to staging unseen.
      if (!isIndexDiskFault(error)) throw error;
      fs.renameSync(target, this.directory);
      throw storageError(error, `conversation ${this.conversationId}`);
    }
    if (outcome.status !== "indexed") throw new Error(`conversation ${this.conversationId} could not be indexed: ${outcome.status}`);
    try {
      await this.store.fs.flushDirectory(this.store.paths.conversations);
    } catch (error) {
      // Not durable, so not created: out of the index and back to staging, where abandon() gives
      // the uploads back and removes it, as when a flush before the rename fails.
      this.store.writer.transaction(() => {
        this.store.writer.removeConversation(this.conversationId);
        this.store.writer.forgetCreation(this.conversationId);
      });
      fs.renameSync(target, this.directory);
      throw storageError(error, `conversation ${this.conversationId}`);
    }
    for (const claimed of this.claimed) claimed.forget();
  }

  /**
   * A node of a cluster (DESIGN §10c): the records in one atrium_append_records call under the new
   * conversation's lease (indexed before it resolves). Its files (claimed uploads, copied
   * artifacts) are already in the database under its id.
   */
  private async commitToCluster(): Promise<void> {
    await this.store.cluster!.create(this.conversationId, this.records);
    for (const claimed of this.claimedBlobs) await claimed.forget();
  }

  /** Nothing of the conversation stays: uploads go back to where they were claimed from. */
  async abandon(): Promise<void> {
    if (this.store.cluster) {
      for (const claimed of this.claimedBlobs.splice(0)) await claimed.giveBack();
      await this.store.files.removeConversation(this.conversationId);
      return;
    }
    await Promise.all([...this.appenders.values()].map((appender) => appender.then((open) => open.close()).catch(() => undefined)));
    for (const claimed of this.claimed.splice(0)) returnUpload(this.store.paths, claimed);
    fs.rmSync(this.directory, { recursive: true, force: true });
  }

  private async append(name: string, body: object): Promise<void> {
    let appender = this.appenders.get(name);
    if (!appender) {
      appender = JsonlAppender.open(path.join(this.directory, name), { now: this.store.now, fs: this.store.fs });
      this.appenders.set(name, appender);
    }
    await (await appender).append(body);
  }
}
