import fs from "node:fs";
import path from "node:path";
import { isIndexDiskFault, notFound, storageError } from "../errors";
import { createIdGenerator, isId, type IdGenerator } from "./ids";
import { openIndex, type IndexDatabase } from "./database";
import { IndexBehindError, IndexCatchUp } from "./index-catch-up";
import { IndexWriter } from "./index-writer";
import { JsonlAppender, type AppendedRecord } from "./jsonl-appender";
import { readJsonl } from "./jsonl-reader";
import { dataPaths, type DataPaths } from "./paths";
import { RecordProofs } from "./record-proofs";
import { foldConversation, type ConversationFold } from "./conversation-fold";
import { nodeStorageFs, type StorageFs } from "./storage-fs";
import type { RecordStore } from "./record-store";
import type { StoreCluster } from "./store-cluster";
import { LocalFiles, type ConversationFiles } from "./conversation-files";
import {
  metadataRecordSchema,
  sessionRecordSchema,
  type MetadataRecord,
  type MetadataRecordBody,
  type SessionRecord,
  type SessionRecordBody,
} from "./records";

export interface StoreOptions {
  now?: () => Date;
  ids?: IdGenerator;
  log?: (message: string) => void;
  migrationsFolder?: string;
  /** The seam fault-injection tests use to make writes, flushes and index transactions fail. */
  fs?: StorageFs;
  /** DESIGN §10c: a node of a cluster keeps its records in PostgreSQL (the files are not used). */
  cluster?: StoreCluster;
  /** The cluster's record key (every node proves and verifies with the same one). */
  recordKey?: Buffer;
  /** Where uploads, attachments and artifacts live: the files under the home unless given (a cluster's database). */
  files?: ConversationFiles;
}

const MAX_OPEN_APPENDERS = 256;
const RETIRED_PREFIX = ".deleting-";

/**
 * The durable store: JSONL files are the truth, metadata.db is the index.
 * Every append is flushed before the index sees it (DESIGN §2, write order).
 */
export class Store implements RecordStore {
  readonly paths: DataPaths;
  readonly index: IndexDatabase;
  readonly writer: IndexWriter;
  readonly now: () => Date;
  readonly newId: IdGenerator;
  readonly log: (message: string) => void;
  readonly fs: StorageFs;
  readonly proofs: RecordProofs;
  /** Conversations whose index fell behind their files after an index fault, and their re-ingest. */
  readonly catchUp: IndexCatchUp;
  /** Set on a node of a cluster: records are read and written there, not in JSONL files. */
  readonly cluster: StoreCluster | null;
  /** A conversation's files (uploads, attachments, artifacts): under the home, or in a cluster's database. */
  readonly files: ConversationFiles;
  private readonly appenders = new Map<string, Promise<JsonlAppender<object, { seq: number }>>>();
  /** Files whose appender is closing: a new appender must not scan a file still being flushed. */
  private readonly closing = new Map<string, Promise<void>>();
  private closed = false;

  constructor(home: string, options: StoreOptions = {}) {
    this.paths = dataPaths(home);
    fs.mkdirSync(this.paths.conversations, { recursive: true, mode: 0o700 });
    this.now = options.now ?? (() => new Date());
    this.newId = options.ids ?? createIdGenerator(() => this.now().getTime());
    this.log = options.log ?? ((message) => console.log(message));
    this.fs = options.fs ?? nodeStorageFs;
    // A node of a cluster indexes only the conversations it holds, read in from the database when
    // it takes their leases: nothing of them on its disk (DESIGN §10c).
    this.index = openIndex(options.cluster ? ":memory:" : this.paths.database, { migrationsFolder: options.migrationsFolder });
    this.proofs = new RecordProofs(home, options.recordKey ?? null);
    this.cluster = options.cluster ?? null;
    this.files = options.files ?? new LocalFiles(this.paths);
    const storage = this.fs;
    const databasePath = this.paths.database;
    this.writer = new IndexWriter(this.index.$client, this.proofs, (scope) => storage.beforeIndexCommit(databasePath, scope));
    this.catchUp = new IndexCatchUp(this, this.log, () => storage.beforeIndexCommit(databasePath, "commit"));
  }

  /**
   * Flushed first, then indexed. An index that fails for the disk's sake (SQLITE_FULL, an I/O
   * error) answers storage_full / storage_error while the record stays in the file; the
   * conversation's index is then caught up from its files (see IndexCatchUp).
   */
  async appendMetadata(conversationId: string, body: MetadataRecordBody): Promise<MetadataRecord> {
    if (this.cluster) return this.cluster.appendMetadata(conversationId, body);
    const filePath = this.paths.metadata(conversationId);
    if (body.type === "conversation.created") this.makeConversationDirectory(conversationId);
    return recordOf(
      this.catchUp.append(
        conversationId,
        () => this.append(filePath, body) as Promise<AppendedRecord<MetadataRecord>>,
        ({ record, endOffset }) => this.writer.transaction(() => this.writer.applyMetadata(conversationId, record, endOffset)),
      ),
    );
  }

  async appendSession(conversationId: string, sessionId: string, body: SessionRecordBody, flushed?: (record: SessionRecord) => void): Promise<SessionRecord> {
    if (this.cluster) return this.cluster.appendSession(conversationId, sessionId, body);
    const filePath = this.paths.session(conversationId, sessionId);
    return recordOf(
      this.catchUp.append(
        conversationId,
        () => this.append(filePath, body) as Promise<AppendedRecord<SessionRecord>>,
        ({ record, endOffset }) => this.writer.transaction(() => this.writer.applySession(conversationId, sessionId, record, endOffset)),
        flushed && (({ record }) => flushed(record)),
      ),
    );
  }

  /** Called with a conversation's id whenever its index has caught up with its files after an index fault. */
  onIndexCaughtUp(listener: (conversationId: string) => void): () => void {
    return this.catchUp.onCaughtUp(listener);
  }

  /**
   * Only a conversation's first record may create its directory: any later append to a
   * directory that is gone (deleted meanwhile) fails with not_found instead of recreating it.
   */
  private makeConversationDirectory(conversationId: string): void {
    const directory = this.paths.conversation(conversationId);
    if (fs.existsSync(directory)) return;
    fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
    this.fs.syncDirectory(this.paths.conversations);
  }

  /** The conversation folded from its files alone (ConversationFold); null when it is not there. */
  foldConversation(conversationId: string): ConversationFold | null {
    return foldConversation(this, conversationId, (proof, subject) => this.proofs.verifyDecision(proof, subject, "approve"));
  }

  readMetadata(conversationId: string) {
    if (this.cluster) return this.cluster.readMetadata(conversationId);
    return readJsonl(this.paths.metadata(conversationId), metadataRecordSchema);
  }

  readSession(conversationId: string, sessionId: string) {
    if (this.cluster) return this.cluster.readSession(conversationId, sessionId);
    return readJsonl(this.paths.session(conversationId, sessionId), sessionRecordSchema);
  }

  /** The ids of every conversation directory on disk (names that are not ids are ignored). */
  conversationDirectories(): string[] {
    return fs
      .readdirSync(this.paths.conversations, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && isId(entry.name))
      .map((entry) => entry.name)
      .sort();
  }

  sessionFiles(conversationId: string): string[] {
    return fs
      .readdirSync(this.paths.conversation(conversationId))
      .filter((name) => name.endsWith(".jsonl") && isId(name.slice(0, -6)))
      .map((name) => name.slice(0, -6))
      .sort();
  }

  /**
   * Closes the appenders of one conversation (before deleting or replacing its directory), then
   * applies the index updates its last records queued for the group's transaction: rows removed
   * or replaced after this are not written back by an update that was still waiting.
   */
  async closeConversation(conversationId: string): Promise<void> {
    const prefix = this.paths.conversation(conversationId);
    const closing: Array<Promise<void>> = [];
    for (const [filePath, appender] of this.appenders) {
      if (filePath.startsWith(prefix)) closing.push(this.closeAppender(filePath, appender));
    }
    await Promise.all(closing);
    this.catchUp.flushIndex();
  }

  /**
   * Deletion without a tombstone, for a disk too full (or broken) to take one: the directory is
   * renamed out of the conversations' namespace first, so a crash part-way never brings it back.
   */
  async retireConversation(conversationId: string): Promise<void> {
    await this.closeConversation(conversationId);
    // A node of a cluster holds no directory of it (DESIGN §10c): its files are the database's, its rows this index's.
    if (this.cluster) {
      await this.cluster.retire(conversationId).catch((error: unknown) => Promise.reject(storageError(error, `the removal of conversation ${conversationId}`)));
      await this.files.removeConversation(conversationId);
      this.writer.transaction(() => this.writer.removeConversation(conversationId));
      return;
    }
    const retired = path.join(this.paths.conversations, `${RETIRED_PREFIX}${conversationId}`);
    try {
      this.fs.rename(this.paths.conversation(conversationId), retired);
      this.fs.syncDirectory(this.paths.conversations);
    } catch (error) {
      throw storageError(error, `the deletion of conversation ${conversationId}`);
    }
    try {
      this.writer.transaction(() => this.writer.removeConversation(conversationId));
    } catch (error) {
      // The directory is already gone, so the conversation is: its rows go when the index catches up.
      if (!isIndexDiskFault(error)) throw error;
      this.catchUp.markStale(conversationId);
    }
    fs.rmSync(retired, { recursive: true, force: true });
  }

  /** A creation undone: its conversation retired and its requestKey free for the retry. */
  async retireNewConversation(conversationId: string): Promise<void> {
    await this.retireConversation(conversationId);
    if (this.cluster) await this.cluster.forgetCreation(conversationId).catch((error: unknown) => Promise.reject(storageError(error, `the undoing of conversation ${conversationId}`)));
    try {
      this.writer.transaction(() => this.writer.forgetCreation(conversationId));
    } catch (error) {
      if (!isIndexDiskFault(error)) throw error;
      throw storageError(error, `the undoing of conversation ${conversationId}`);
    }
  }

  /** Directories a crash left half-retired are removed at start. */
  removeRetiredDirectories(): void {
    for (const name of fs.readdirSync(this.paths.conversations)) {
      if (name.startsWith(RETIRED_PREFIX)) fs.rmSync(path.join(this.paths.conversations, name), { recursive: true, force: true });
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.catchUp.close();
    await Promise.all([...this.appenders].map(([filePath, appender]) => this.closeAppender(filePath, appender)));
    await Promise.all(this.closing.values());
    this.catchUp.flushIndex();
    this.index.$client.close();
  }

  private async append(filePath: string, body: object): Promise<AppendedRecord<{ seq: number }>> {
    if (this.closed) throw new Error(`the store at ${this.paths.home} is closed`);
    let appender = this.appenders.get(filePath);
    const failed = appender ? await appender.then((open) => (open.failed ? open : null), () => null) : null;
    if (failed && this.appenders.get(filePath) === appender) {
      // A failed writer is replaced; the new one rescans the file and cuts what was never acknowledged.
      this.appenders.delete(filePath);
      void failed.close().catch(() => undefined);
      appender = undefined;
    }
    appender = this.appenders.get(filePath);
    if (!appender) {
      if (!fs.existsSync(path.dirname(filePath))) throw notFound("conversation", path.basename(path.dirname(filePath)));
      const previous = this.closing.get(filePath) ?? Promise.resolve();
      const goodBytes = failed?.bytes;
      appender = previous.then(() =>
        JsonlAppender.open(filePath, { now: this.now, onRepair: this.log, fs: this.fs, goodBytes }),
      );
      this.appenders.set(filePath, appender);
      appender.catch(() => this.appenders.delete(filePath));
      this.evictIdleAppenders();
    } else {
      // Keep recently used files at the end of the map so eviction drops the coldest.
      this.appenders.delete(filePath);
      this.appenders.set(filePath, appender);
    }
    return (await appender).append(body);
  }

  private evictIdleAppenders(): void {
    while (this.appenders.size > MAX_OPEN_APPENDERS) {
      const [filePath, appender] = this.appenders.entries().next().value!;
      void this.closeAppender(filePath, appender);
    }
  }

  private closeAppender(filePath: string, appender: Promise<JsonlAppender<object, { seq: number }>>): Promise<void> {
    this.appenders.delete(filePath);
    const closed = appender
      .then((open) => open.close())
      .catch((error: unknown) => this.log(`closing ${filePath} failed: ${String(error)}`))
      .finally(() => {
        if (this.closing.get(filePath) === closed) this.closing.delete(filePath);
      });
    this.closing.set(filePath, closed);
    return closed;
  }
}

/** The record an append wrote, also when only its index update failed (IndexBehindError then carries the record itself). */
async function recordOf<R>(appending: Promise<AppendedRecord<R>>): Promise<R> {
  try {
    return (await appending).record;
  } catch (error) {
    if (error instanceof IndexBehindError) throw new IndexBehindError((error.record as AppendedRecord<R>).record, error.fault);
    throw error;
  }
}
