import type { OwnerRecords } from "./owner-records";
import { AtriumError } from "../errors";
import type { Waiting } from "../events/entities";
import type { MessageInput, TurnInput, WaitingEntry } from "../ports/owner-port";
import { assertWaitingRoom, textBytes, waitingLoad } from "./waiting-limits";

/**
 * Messages the engine queues itself (a subagent's report, an objective slice) count towards the
 * caps but are never refused: their own machinery bounds them, and refusing one would lose work.
 */
const UNCAPPED_ORIGINS: ReadonlySet<string> = new Set(["subagent", "objective"]);

/**
 * A conversation's waiting messages (DESIGN §3, inbox), owned by its owner: each change is
 * recorded (`queue.*`) before it is made, and every client is told the new list.
 */
export class Inbox {
  constructor(
    private readonly records: OwnerRecords,
    private entries: WaitingEntry[],
    private readonly announce: (waiting: Waiting[]) => void,
  ) {}

  get all(): readonly WaitingEntry[] {
    return this.entries;
  }

  list(): Waiting[] {
    return this.entries.map((entry) => ({
      id: entry.id,
      text: entry.text,
      mode: entry.mode,
      createdAt: entry.createdAt,
      sessionId: entry.sessionId,
      origin: entry.origin,
    }));
  }

  /**
   * One session's messages in the order they start: jumps, then a steer whose turn ended unread
   * (it becomes the next turn, DESIGN §3), then the owner's, then the rest.
   */
  ordered(sessionId: string): WaitingEntry[] {
    const mine = this.entries.filter((entry) => entry.sessionId === sessionId);
    const rank = (entry: WaitingEntry) => {
      if (entry.mode === "jump") return 0;
      const owner = entry.origin === "owner";
      if (entry.mode === "steer") return owner ? 1 : 3;
      return owner ? 2 : 4;
    };
    return mine.sort((a, b) => rank(a) - rank(b) || a.position - b.position);
  }

  /**
   * What the session's next turn starts from: the head of its list, with the steers of the same
   * origin beside it. After the owner interrupted (`held`), nothing starts until the owner
   * sends something or asks a waiting message to run (DESIGN §3, Interrupt).
   */
  next(sessionId: string, held: boolean): TurnInput[] {
    if (held) return [];
    const candidates = this.ordered(sessionId);
    const head = candidates[0];
    if (!head) return [];
    const inputs = head.mode === "steer" ? candidates.filter((entry) => entry.mode === "steer" && entry.origin === head.origin) : [head];
    return inputs.map((entry) => ({
      id: entry.id,
      text: entry.text,
      origin: entry.origin,
      fromSessionId: entry.fromSessionId,
      attachments: entry.attachments,
      fromWaiting: true,
    }));
  }

  find(messageId: string): WaitingEntry {
    const entry = this.entries.find((candidate) => candidate.id === messageId);
    if (!entry) throw new AtriumError("not_found", `waiting message ${messageId} was not found`);
    return entry;
  }

  /**
   * Every entry counts, steers included: a steer handed to the running turn waits here until
   * the turn reads it before its next model call.
   */
  private assertRoom(change: { addedMessages: number; addedBytes: number }): void {
    assertWaitingRoom(waitingLoad(this.entries.map((entry) => entry.text)), change);
  }

  async add(sessionId: string, messageId: string, input: MessageInput, mode: WaitingEntry["mode"], joinedTurnId?: string): Promise<void> {
    if (!UNCAPPED_ORIGINS.has(input.origin)) this.assertRoom({ addedMessages: 1, addedBytes: textBytes(input.text) });
    const record = await this.records.append({
      type: "queue.added",
      messageId,
      sessionId,
      text: input.text,
      mode,
      origin: input.origin,
      fromSessionId: input.fromSessionId,
      attachments: input.attachments?.length ? input.attachments : undefined,
      turnId: joinedTurnId,
      requestKey: input.requestKey,
      requestHash: input.requestHash,
    });
    this.entries.push({
      id: messageId,
      sessionId,
      text: input.text,
      mode,
      origin: input.origin,
      fromSessionId: input.fromSessionId,
      attachments: input.attachments,
      createdAt: record.at,
      position: record.seq,
      turnId: joinedTurnId,
    });
    this.publish();
  }

  /** `joinedTurnId`: the running turn a message turned into a steer now joins. */
  async update(messageId: string, patch: { text?: string; mode?: WaitingEntry["mode"] }, joinedTurnId?: string): Promise<WaitingEntry> {
    const entry = this.find(messageId);
    if (patch.text !== undefined) this.assertRoom({ addedMessages: 0, addedBytes: textBytes(patch.text) - textBytes(entry.text) });
    const turnId = patch.mode === undefined ? undefined : patch.mode === "steer" ? (joinedTurnId ?? null) : null;
    await this.records.append({ type: "queue.updated", messageId, ...patch, ...(turnId !== undefined ? { turnId } : {}) });
    if (patch.text !== undefined) entry.text = patch.text;
    if (patch.mode !== undefined) entry.mode = patch.mode;
    if (turnId !== undefined) entry.turnId = turnId ?? undefined;
    this.publish();
    return entry;
  }

  /** Records a message leaving the list and drops it; the caller publishes once it is done. */
  async remove(messageId: string, reason: "withdrawn" | "steered" | "started"): Promise<void> {
    this.find(messageId);
    await this.records.append({ type: "queue.removed", messageId, reason });
    this.entries = this.entries.filter((entry) => entry.id !== messageId);
  }

  /** Drops messages whose leaving is already on record (a turn took them); tells clients if any went. */
  forget(ids: ReadonlySet<string>): void {
    if (!this.entries.some((entry) => ids.has(entry.id))) return;
    this.entries = this.entries.filter((entry) => !ids.has(entry.id));
    this.publish();
  }

  publish(): void {
    this.announce(this.list());
  }
}
