import type { Approval, Conversation, Item, Question, Session, Turn, Waiting } from "../events/entities";
import type { ConversationEvent } from "../events/events";
import {
  formatApproval,
  formatInput,
  formatQuestion,
  formatRetry,
  formatTurnEnded,
  formatTurnState,
  formatWaiting,
  isSettled,
  itemContent,
  itemLabel,
  preview,
} from "./chat-format";
import type { ChatScreen, ChatStyle } from "./chat-screen";

/** What is on screen of one item, so a replay, a snapshot or a history page never prints it twice. */
interface ItemView {
  item: Item;
  /** The item's content as the server has it, as far as this client knows. */
  received: string;
  /** How much of `received` has been shown. */
  printed: number;
  headerShown: boolean;
  closed: boolean;
  /** Newlines seen in a tool's output; lines past the cap are counted, not shown. */
  outputLines: number;
}

const LIVE_TOOL_LINES = 40;
const HISTORY_TOOL_LINES = 6;
const HISTORY_PREVIEW_CHARS = 300;

/**
 * Turns the conversation's items and events into terminal output. Deltas of several items
 * may interleave (subagents run alongside); a block that was interrupted by other output
 * is continued under its label again.
 */
export class ChatRenderer {
  private readonly views = new Map<string, ItemView>();
  private readonly agents = new Map<string, string>();
  private readonly openTurns = new Map<string, Turn>();
  private readonly endedTurns = new Set<string>();
  private readonly announced = new Set<string>();
  private open: { itemId: string; breaks: number } | null = null;
  private waitingShown = "nothing waiting";
  private title: string;

  constructor(
    private readonly screen: ChatScreen,
    private readonly style: ChatStyle,
    private readonly conversation: Conversation,
    sessions: Session[],
  ) {
    this.title = conversation.title;
    for (const session of sessions) this.agents.set(session.id, session.agent);
  }

  runningTurns(): Turn[] {
    return [...this.openTurns.values()];
  }

  /** The root-session seq to fetch from after a reconnect: the oldest item still in flight, else the newest seen. */
  resumeSeq(): number {
    const root = [...this.views.values()].map((view) => view.item).filter((item) => item.sessionId === this.conversation.rootSessionId);
    const unsettled = root.filter((item) => !isSettled(item)).map((item) => item.seq);
    if (unsettled.length > 0) return Math.min(...unsettled) - 1;
    return Math.max(0, ...root.map((item) => item.seq));
  }

  status(text: string): void {
    this.closeBlock();
    this.screen.line(this.style.dim(`[${text}]`));
  }

  error(text: string): void {
    this.closeBlock();
    this.screen.line(this.style.error(text));
  }

  text(text: string): void {
    this.closeBlock();
    this.screen.line(text);
  }

  history(items: Item[], total: number): void {
    if (items.length === 0) return;
    const what = total > items.length ? `last ${items.length} of ${total} items` : `${total} items`;
    this.screen.line(this.style.dim(`── earlier in this conversation (${what}) ──`));
    for (const item of items) this.showHistoryItem(item);
    this.screen.line(this.style.dim("── live ──"));
  }

  handle(event: ConversationEvent): void {
    switch (event.type) {
      case "snapshot":
        for (const turn of event.turns) this.trackTurn(turn, "in progress");
        for (const item of [...event.items].sort(byCreation)) this.showItem(item);
        this.showWaiting(event.waiting);
        return;
      case "conversation.updated":
        if (event.conversation.title !== this.title && event.conversation.title.trim() !== "") this.status(`title: ${event.conversation.title}`);
        this.title = event.conversation.title;
        return;
      case "session.created":
        this.agents.set(event.session.id, event.session.agent);
        if (event.session.parentSessionId !== null) this.status(`subagent ${event.session.agent} started`);
        return;
      case "turn.started":
        this.trackTurn(event.turn, "started");
        return;
      case "turn.updated": {
        const before = this.openTurns.get(event.turn.id);
        if (!this.endedTurns.has(event.turn.id)) this.openTurns.set(event.turn.id, event.turn);
        if (before && before.status !== event.turn.status) this.status(this.tag(event.turn.sessionId) + formatTurnState(event.turn, "updated"));
        return;
      }
      case "turn.retrying":
        this.status(this.tag(event.sessionId) + formatRetry(event));
        return;
      case "turn.ended":
        this.turnEnded(event.turn);
        return;
      case "item.created":
      case "item.updated":
      case "item.completed":
        this.showItem(event.item);
        return;
      case "item.delta": {
        const view = this.views.get(event.itemId);
        if (!view) return;
        view.received += event.delta;
        this.showContent(view);
        return;
      }
      case "queue.updated":
        this.showWaiting(event.waiting);
        return;
      case "approval.requested":
        this.approvalRequested(event.approval);
        return;
      case "approval.decided":
        this.status(`approval ${event.approval.id} ${event.approval.status} (${event.approval.toolName})`);
        return;
      case "question.asked":
        this.questionAsked(event.question);
        return;
      case "question.answered":
        this.status(`question answered: ${preview(event.question.answer ?? "", 80)}`);
        return;
      case "compaction.started":
        this.status("compacting the context…");
        return;
      case "compaction.completed":
        this.status(event.itemId === null ? "nothing to compact" : "context compacted");
        return;
      case "objective.updated":
        if (event.objective) this.status(`objective ${event.objective.status}: ${preview(event.objective.text, 80)}`);
        return;
      case "context.updated":
        return;
    }
  }

  turnEnded(turn: Turn): void {
    if (this.endedTurns.has(turn.id)) return;
    this.endedTurns.add(turn.id);
    this.openTurns.delete(turn.id);
    const text = this.tag(turn.sessionId) + formatTurnEnded(turn);
    if (turn.status === "failed") this.error(`[${text}]`);
    else this.status(text);
  }

  approvalRequested(approval: Approval): void {
    if (this.announced.has(approval.id)) return;
    this.announced.add(approval.id);
    this.closeBlock();
    const [request, howTo] = formatApproval(approval);
    this.screen.line(this.style.attention(this.tag(approval.sessionId) + request));
    this.screen.line(howTo);
  }

  private questionAsked(question: Question): void {
    if (this.announced.has(question.id)) return;
    this.announced.add(question.id);
    this.closeBlock();
    const [asked, howTo] = formatQuestion(question);
    this.screen.line(this.style.attention(this.tag(question.sessionId) + asked));
    this.screen.line(howTo);
  }

  private trackTurn(turn: Turn, event: "started" | "in progress"): void {
    if (this.endedTurns.has(turn.id)) return;
    const known = this.openTurns.has(turn.id);
    this.openTurns.set(turn.id, turn);
    if (!known) this.status(this.tag(turn.sessionId) + formatTurnState(turn, event));
  }

  private showWaiting(waiting: Waiting[]): void {
    const text = formatWaiting(waiting);
    if (text === this.waitingShown) return;
    this.waitingShown = text;
    this.status(text);
  }

  private showHistoryItem(item: Item): void {
    const content = itemContent(item);
    this.views.set(item.id, { item, received: content, printed: content.length, headerShown: true, closed: true, outputLines: 0 });
    const label = itemLabel(item, this.tag(item.sessionId));
    if (item.kind === "tool_call") {
      this.screen.line(`${this.style.tool(label)} ${formatInput(item.input)}`);
      const lines = content.replace(/\n$/, "").split("\n").filter((line, index, all) => line !== "" || all.length > 1);
      for (const line of lines.slice(0, HISTORY_TOOL_LINES)) this.screen.line(`  ${line}`);
      if (lines.length > HISTORY_TOOL_LINES) this.screen.line(this.style.dim(`  … ${lines.length - HISTORY_TOOL_LINES} more lines`));
      this.toolOutcome(item);
      return;
    }
    const shown = item.kind === "reasoning" || item.kind === "compaction_summary" ? preview(content, HISTORY_PREVIEW_CHARS) : content;
    const suffix = item.status === "completed" ? "" : this.style.dim(` [${item.status}]`);
    this.screen.line(`${this.paintLabel(item, `${label}:`)} ${this.paintText(item, shown)}${suffix}`);
  }

  private showItem(item: Item): void {
    let view = this.views.get(item.id);
    if (!view) {
      view = { item, received: "", printed: 0, headerShown: false, closed: false, outputLines: 0 };
      this.views.set(item.id, view);
    }
    view.item = item;
    view.received = itemContent(item);
    if (!view.headerShown) this.openBlock(view);
    this.showContent(view);
    if (isSettled(item)) this.closeItem(view);
  }

  private showContent(view: ItemView): void {
    if (view.received.length <= view.printed) return;
    let fresh = view.received.slice(view.printed);
    view.printed = view.received.length;
    // After a label the text's own leading space (a streamed word's separator) is not wanted.
    if (this.openBlock(view) && view.item.kind !== "tool_call") fresh = fresh.trimStart();
    if (view.item.kind === "tool_call") this.writeToolOutput(view, fresh);
    else this.screen.write(this.paintText(view.item, fresh));
  }

  /**
   * Makes `view` the block the next text continues: its header the first time, a
   * continuation label after other output. Returns whether a label was printed.
   */
  private openBlock(view: ItemView): boolean {
    const current = this.open !== null && this.open.itemId === view.item.id && this.open.breaks === this.screen.breaks;
    if (current) return false;
    const label = itemLabel(view.item, this.tag(view.item.sessionId));
    const continued = view.headerShown ? " (continued)" : "";
    this.screen.endLine();
    if (view.item.kind === "tool_call") {
      const input = view.headerShown ? "" : ` ${formatInput(view.item.input)}`;
      this.screen.line(`${this.style.tool(`${label}${continued}`)}${input}`);
    } else {
      this.screen.write(`${this.paintLabel(view.item, `${label}${continued}:`)} `);
    }
    view.headerShown = true;
    this.open = { itemId: view.item.id, breaks: this.screen.breaks };
    return true;
  }

  private writeToolOutput(view: ItemView, fresh: string): void {
    for (const [index, piece] of fresh.split("\n").entries()) {
      if (index > 0) {
        if (view.outputLines < LIVE_TOOL_LINES) this.screen.write("\n");
        view.outputLines += 1;
      }
      if (piece === "" || view.outputLines >= LIVE_TOOL_LINES) continue;
      if (this.screen.atLineStart) this.screen.write("  ");
      this.screen.write(piece);
    }
  }

  private closeItem(view: ItemView): void {
    if (view.closed) {
      // Shown as settled already (from the history): only end the line of a continuation printed since.
      if (this.open?.itemId === view.item.id) this.closeBlock();
      return;
    }
    view.closed = true;
    const item = view.item;
    const isOpen = this.open?.itemId === item.id;
    if (item.kind === "tool_call") {
      const hidden = view.outputLines - LIVE_TOOL_LINES + (view.received.endsWith("\n") ? 0 : 1);
      if (hidden > 0) this.screen.line(this.style.dim(`  … ${hidden} more lines`));
      this.toolOutcome(item);
    } else if (item.status !== "completed") {
      const note = this.style.dim(`[${item.status}]`);
      if (isOpen) this.screen.write(` ${note}`);
      else this.screen.line(`${this.paintLabel(item, itemLabel(item, this.tag(item.sessionId)))} ${note}`);
    }
    if (this.open?.itemId === item.id) this.closeBlock();
  }

  private toolOutcome(item: Item): void {
    const exit = item.exitCode !== undefined && item.exitCode !== null && item.exitCode !== 0 ? ` (exit ${item.exitCode})` : "";
    if (item.status === "completed" && exit === "") return;
    this.screen.endLine();
    const paint = item.status === "failed" || item.status === "unknown" ? this.style.error : this.style.dim;
    this.screen.line(paint(`  → ${item.status}${exit}`));
  }

  private closeBlock(): void {
    this.screen.endLine();
    this.open = null;
  }

  private tag(sessionId: string | undefined): string {
    if (sessionId === undefined || sessionId === this.conversation.rootSessionId) return "";
    return `[${this.agents.get(sessionId) ?? "subagent"}] `;
  }

  private paintLabel(item: Item, label: string): string {
    if (item.kind === "user_message") return this.style.user(this.style.label(label));
    if (item.kind === "reasoning") return this.style.dim(label);
    if (item.kind === "notice") return this.style.attention(label);
    return this.style.label(label);
  }

  private paintText(item: Item, text: string): string {
    return item.kind === "reasoning" ? this.style.dim(text) : text;
  }
}

function byCreation(a: Item, b: Item): number {
  return a.createdAt === b.createdAt ? a.seq - b.seq : a.createdAt < b.createdAt ? -1 : 1;
}
