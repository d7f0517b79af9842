import type { IndexStatements } from "./index-statements";

interface Progress {
  seq: number;
  bytes: number;
}

/**
 * The bookkeeping live indexing writes after every record (updated_at, file progress, turn
 * statuses), held in memory while ingest replays one conversation and written once at its end.
 * Each of those writes keeps only its last value or a maximum, so the final rows are the same.
 */
export class ReplayTally {
  /** The latest `at` of records that move updated_at since the conversation row was (re)created. */
  private touchedAt: string | null = null;
  private metadataProgress: Progress | null = null;
  private readonly sessionProgress = new Map<string, Progress>();
  /** Sessions whose status live indexing recomputed since their row was (re)created, which resets it to idle. */
  private readonly statusSessions = new Set<string>();
  private conversationStatus = false;
  /** Session of each turn this replay started, so turn.ended needs no lookup. */
  readonly turnSessions = new Map<string, string>();

  constructor(readonly conversationId: string) {}

  conversationCreated(): void {
    this.touchedAt = null;
    this.conversationStatus = false;
  }

  sessionCreated(sessionId: string): void {
    this.statusSessions.delete(sessionId);
  }

  touch(at: string): void {
    if (this.touchedAt === null || at > this.touchedAt) this.touchedAt = at;
  }

  refreshStatus(sessionId: string): void {
    this.statusSessions.add(sessionId);
    this.conversationStatus = true;
  }

  metadataApplied(seq: number, bytes: number): void {
    this.metadataProgress = { seq, bytes };
  }

  sessionApplied(sessionId: string, seq: number, bytes: number): void {
    this.sessionProgress.set(sessionId, { seq, bytes });
  }

  removed(): void {
    this.turnSessions.clear();
    this.statusSessions.clear();
    this.conversationStatus = false;
    this.touchedAt = null;
    this.metadataProgress = null;
    this.sessionProgress.clear();
  }

  /** Statuses first: live indexing computed them before any session file created a placeholder session row. */
  flush(statements: IndexStatements): void {
    const id = this.conversationId;
    for (const sessionId of this.statusSessions) statements.refreshSessionStatus.run({ id: sessionId });
    if (this.conversationStatus) statements.refreshConversationStatus.run({ id });
    if (this.touchedAt !== null) statements.touchConversation.run({ id, at: this.touchedAt });
    if (this.metadataProgress) statements.setMetadataProgress.run({ id, ...this.metadataProgress });
    for (const [sessionId, progress] of this.sessionProgress) statements.setSessionProgress.run({ id: sessionId, ...progress });
  }
}
