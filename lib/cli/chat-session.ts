import readline from "node:readline";
import type { Conversation, Session } from "../events/entities";
import type { ConversationEvent } from "../events/events";
import { ChatApiError, ChatConnectionError, type ChatApi } from "./chat-api";
import { followConversationEvents, type StreamSignal } from "./chat-events";
import { formatConversation } from "./chat-format";
import { CHAT_HELP, parseChatLine, type ChatCommand } from "./chat-input";
import { ChatRenderer } from "./chat-renderer";
import { ChatScreen, chatStyle } from "./chat-screen";
import { EXIT_DONE, EXIT_FAILED } from "./exit-status";

const HISTORY_ITEMS = 20;

export interface ChatSessionOptions {
  api: ChatApi;
  conversation: Conversation;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream & { columns?: number };
  /** A line editor with a prompt kept under the output (both ends are terminals). */
  interactive: boolean;
  color: boolean;
}

type Snapshot = Extract<ConversationEvent, { type: "snapshot" }>;

/**
 * One attached terminal: prints the recent history and then the live events, and sends
 * each typed line. Lines are handled one after another so messages keep their order.
 * Leaving never stops anything on the server.
 */
export class ChatSession {
  private readonly screen: ChatScreen;
  private readonly renderer: ChatRenderer;
  private readonly events = new AbortController();
  private work: Promise<void> = Promise.resolve();
  private prompt: readline.Interface | null = null;
  private interruptedTurns: string | null = null;
  private leaving = false;
  private finish: (status: number) => void = () => {};

  constructor(
    private readonly options: ChatSessionOptions,
    sessions: Session[],
  ) {
    this.screen = new ChatScreen(options.output);
    this.renderer = new ChatRenderer(this.screen, chatStyle(options.color), options.conversation, sessions);
  }

  static async attach(options: ChatSessionOptions): Promise<ChatSession> {
    return new ChatSession(options, await options.api.sessions());
  }

  /** Runs until the user leaves (EXIT_DONE) or the conversation becomes unreachable for good (EXIT_FAILED). */
  async run(): Promise<number> {
    const { api } = this.options;
    const done = new Promise<number>((resolve) => (this.finish = resolve));
    // Subscribe before reading the history: the snapshot then marks what is live, and nothing falls between the two.
    const stream = followConversationEvents({
      first: await api.openEvents(undefined, this.events.signal),
      reconnect: (lastEventId, signal) => api.openEvents(lastEventId, signal),
      signal: this.events.signal,
    });
    try {
      const opening = await stream.next();
      if (opening.done || opening.value.kind !== "event" || opening.value.event.type !== "snapshot") {
        throw new Error("the server's event stream did not start with a snapshot");
      }
      await this.showOpening(opening.value.event);
    } catch (error) {
      this.events.abort();
      throw error;
    }
    void this.consume(stream);
    this.listen();
    const status = await done;
    process.removeListener("SIGINT", this.onInterruptKey);
    return status;
  }

  private async showOpening(snapshot: Snapshot): Promise<void> {
    const { api } = this.options;
    this.screen.line(formatConversation(this.options.conversation));
    const { items, total } = await api.recentItems(HISTORY_ITEMS);
    // In-flight items are shown from the snapshot instead, where their deltas continue.
    const live = new Set(snapshot.items.map((item) => item.id));
    const settled = items.filter((item) => !live.has(item.id) && item.status !== "streaming");
    this.renderer.history(settled, total - (items.length - settled.length));
    this.renderer.handle(snapshot);
    for (const approval of await api.pendingApprovals()) this.renderer.approvalRequested(approval);
    this.renderer.status("type a message and press Enter · /help for commands · /quit to leave");
  }

  private async consume(stream: AsyncGenerator<StreamSignal>): Promise<void> {
    try {
      for await (const signal of stream) {
        if (signal.kind === "dropped") this.renderer.status(`connection lost (${signal.reason}); reconnecting…`);
        else if (signal.kind === "resumed") this.renderer.status("reconnected");
        else if (signal.event.type === "snapshot") await this.catchUp(signal.event);
        else this.renderer.handle(signal.event);
      }
    } catch (error) {
      if (this.leaving) return;
      const gone = error instanceof ChatApiError && error.status === 404;
      this.renderer.error(gone ? "the conversation no longer exists" : `the event stream failed: ${messageOf(error)}`);
      this.leave(EXIT_FAILED);
    }
  }

  /**
   * A snapshot after a reconnect means the server no longer held the missed events:
   * fetch the items written meanwhile and the end of turns that finished unseen.
   */
  private async catchUp(snapshot: Snapshot): Promise<void> {
    const { api } = this.options;
    const live = new Set(snapshot.items.map((item) => item.id));
    const missed = await api.itemsAfter(this.renderer.resumeSeq());
    for (const item of missed) if (!live.has(item.id)) this.renderer.handle({ type: "item.completed", conversationId: api.conversationId, item });
    const running = new Set(snapshot.turns.map((turn) => turn.id));
    const finished = this.renderer.runningTurns().filter((turn) => !running.has(turn.id));
    this.renderer.handle(snapshot);
    for (const stale of finished) {
      const turn = await api.turn(stale.id);
      if (turn.endedAt !== null) this.renderer.turnEnded(turn);
    }
  }

  private listen(): void {
    const { input, output, interactive } = this.options;
    const prompt = readline.createInterface({ input, output: interactive ? output : undefined, terminal: interactive, prompt: "> " });
    this.prompt = prompt;
    prompt.on("line", (line) => {
      this.screen.promptSubmitted();
      this.enqueue(parseChatLine(line));
    });
    prompt.on("close", () => this.leave(EXIT_DONE));
    prompt.on("SIGINT", this.onInterruptKey);
    // Without a terminal line editor (stdin piped), Ctrl-C arrives as a signal instead.
    process.on("SIGINT", this.onInterruptKey);
    if (interactive) this.screen.attachPrompt(prompt);
  }

  /** Ctrl-C: interrupts the running turn once; when nothing runs (or pressed again), leaves. */
  private readonly onInterruptKey = (): void => {
    const running = this.renderer.runningTurns().map((turn) => turn.id).join(",");
    if (running === "" || running === this.interruptedTurns) {
      this.leave(EXIT_DONE);
      return;
    }
    this.interruptedTurns = running;
    this.renderer.status("interrupting the running turn (Ctrl-C again to leave)");
    this.enqueue({ kind: "interrupt" });
  };

  private enqueue(command: ChatCommand): void {
    this.work = this.work
      .then(() => this.perform(command))
      .then(
        () => {
          if (!this.leaving && this.options.interactive) this.prompt?.prompt();
        },
        (error: unknown) => {
          this.renderer.error(`${describeCommand(command)} failed: ${messageOf(error)}`);
          this.leave(EXIT_FAILED);
        },
      );
  }

  private async perform(command: ChatCommand): Promise<void> {
    const { api } = this.options;
    try {
      switch (command.kind) {
        case "send":
          await api.sendMessage(command.text, command.mode);
          return;
        case "interrupt":
          if ((await api.interrupt()) === null) this.renderer.status("nothing is running");
          return;
        case "decide":
          await api.decideApproval(command.approvalId, command.decision);
          return;
        case "answer":
          await api.answerQuestion(command.questionId, command.text);
          return;
        case "help":
          this.renderer.text(CHAT_HELP);
          return;
        case "quit":
          this.leave(EXIT_DONE);
          return;
        case "invalid":
          this.renderer.error(command.message);
          return;
        case "nothing":
          return;
      }
    } catch (error) {
      if (!(error instanceof ChatApiError || error instanceof ChatConnectionError)) throw error;
      this.renderer.error(`${describeCommand(command)} failed: ${error.message}`);
    }
  }

  /** Leaves once the lines already typed have been sent; the conversation carries on without this client. */
  private leave(status: number): void {
    if (this.leaving) return;
    this.leaving = true;
    void this.work.finally(() => {
      this.events.abort();
      this.prompt?.close();
      this.screen.detachPrompt();
      this.screen.endLine();
      this.finish(status);
    });
  }
}

function describeCommand(command: ChatCommand): string {
  switch (command.kind) {
    case "send":
      return command.mode === "auto" ? "sending" : `sending (${command.mode})`;
    case "decide":
      return `${command.decision === "approve" ? "approving" : "denying"} ${command.approvalId}`;
    case "answer":
      return `answering ${command.questionId}`;
    default:
      return command.kind;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
