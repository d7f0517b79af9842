import type { Approval, Objective, Question } from "../events/entities";
import type { ConversationFold } from "../store/conversation-fold";
import type { AtriumError } from "../errors";
import { IndexBehindError } from "../store/index-catch-up";
import type { MetadataRecord, MetadataRecordBody, SessionRecord, SessionRecordBody } from "../store/records";
import type { RecordStore } from "../store/record-store";

/**
 * The owner's metadata log and what it folds to (DESIGN §2): every metadata record the owner
 * writes goes through `append`, which flushes it, indexes it and folds it into the owner's state.
 * The owner's approvals, questions, objective and listeners are read from that fold, never from
 * the index, so the state is the records' own wherever the records are.
 */
export class OwnerRecords {
  constructor(
    private readonly store: RecordStore,
    private readonly conversationId: string,
    readonly fold: ConversationFold,
  ) {}

  /** The storage error of a record that reached the files but not the index, answered when the command is done. */
  private indexFault: AtriumError | null = null;
  /** A command is being applied (the owner's queue): only its own writes' faults are its answer. */
  private inCommand = false;

  async append(body: MetadataRecordBody): Promise<MetadataRecord> {
    const record = await this.durable(this.store.appendMetadata(this.conversationId, body));
    this.fold.applyMetadata(record);
    return record;
  }

  /**
   * A session record; the owner's sessions keep their items themselves (ItemWriter). `flushed`
   * is called once, as soon as the record is on disk: before its index update where the store
   * can tell, else when the append resolves. Never for a record that did not reach the disk.
   */
  async appendSession(sessionId: string, body: SessionRecordBody, flushed?: (record: SessionRecord) => void): Promise<SessionRecord> {
    if (!flushed) return this.durable(this.store.appendSession(this.conversationId, sessionId, body));
    let told = false;
    const tell = (record: SessionRecord) => {
      if (told) return;
      told = true;
      flushed(record);
    };
    const record = await this.durable(this.store.appendSession(this.conversationId, sessionId, body, tell));
    tell(record);
    return record;
  }

  /** The command succeeded whatever the index did (a delete: catching up drops the rows). */
  forgetIndexFault(): void {
    this.indexFault = null;
  }

  /** The owner's queue starts applying a command. */
  beginCommand(): void {
    this.inCommand = true;
    this.indexFault = null;
  }

  /**
   * The command is over, its records all on disk: the index fault one of them met (if any), for
   * its caller to hear, as an IndexBehindError (the write happened). A write made outside any
   * command (a tool's start mark) answers nobody: the index catches up from the files.
   */
  endCommand(): IndexBehindError | null {
    const fault = this.indexFault;
    this.inCommand = false;
    this.indexFault = null;
    return fault ? new IndexBehindError(null, fault) : null;
  }

  /**
   * A record on disk whose index update failed is written all the same (the files are the
   * truth): the command goes on, and the fault is kept for its answer. A record that did not
   * reach the files fails the command here.
   */
  private async durable<R>(appending: Promise<R>): Promise<R> {
    try {
      return await appending;
    } catch (error) {
      if (!(error instanceof IndexBehindError)) throw error;
      if (this.inCommand) this.indexFault ??= error.fault;
      return error.record as R;
    }
  }

  approval(approvalId: string): Approval | null {
    const approval = this.fold.approvals.get(approvalId);
    return approval ? { ...approval } : null;
  }

  question(questionId: string): Question | null {
    const question = this.fold.questions.get(questionId);
    return question ? { ...question, choices: [...question.choices] } : null;
  }

  /** In the order they were asked (createdAt, then id, as the index lists them). */
  approvals(status?: Approval["status"]): Approval[] {
    return [...this.fold.approvals.values()]
      .filter((approval) => !status || approval.status === status)
      .sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1))
      .map((approval) => ({ ...approval }));
  }

  questions(status?: Question["status"]): Question[] {
    return [...this.fold.questions.values()].filter((question) => !status || question.status === status).map((question) => ({ ...question }));
  }

  objective(): Objective | null {
    return this.fold.objective;
  }

  /** What the objective listens for while it waits for an event (wait_for_event), or null. */
  listener(objectiveId: string): unknown {
    return this.fold.listeners.get(objectiveId) ?? null;
  }
}
