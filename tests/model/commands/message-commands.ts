import type { ErrorCode } from "@/lib/errors";
import { pick, pumpModel, steersWaiting, turnOutcome, type MessageKind, type Model, type ModelConversation, type WaitingMode } from "../model-state";
import { abandonParked, ConversationCommand, expectOutcome, newMessage, type Real } from "./command-support";

export type SendMode = "auto" | WaitingMode;

const EXPECTED_STATUS = { auto: "queued", queue: "queued", steer: "steered", jump: "jumped" } as const;

/**
 * What the model expects of an owner's message sent to a conversation whose root agent is in
 * the state the model holds, and the model's change. Returns the expected message status.
 */
function sendInModel(model: Model, conversation: ModelConversation, mode: SendMode, kind: MessageKind, id: string, text: string): string {
  conversation.acknowledged.set(id, text);
  // The owner sent something: what an interrupt held back may go on (DESIGN §3, Interrupt).
  conversation.held = false;
  if (!conversation.parked) {
    const outcome = turnOutcome([{ id, text, kind }]);
    if (outcome !== "completed") conversation.parked = { on: outcome, turnId: "", decisionId: "" };
    pumpModel(conversation);
    return "started";
  }
  const waitingMode: WaitingMode = mode === "auto" ? "queue" : mode;
  model.counter += 1;
  conversation.waiting.push({ id, text, kind, mode: waitingMode, position: model.counter });
  if (waitingMode === "jump") {
    abandonParked(model, conversation);
    pumpModel(conversation);
  }
  return EXPECTED_STATUS[mode];
}

/** POST …/messages with a mode, to whatever state the conversation is in. */
export class SendCommand extends ConversationCommand {
  private text = "";

  constructor(
    index: number,
    private readonly mode: SendMode,
    private readonly kind: MessageKind,
  ) {
    super(index);
  }

  /** Bug 4 (see known-bugs.model.test.ts): the default run does not jump while steers wait. */
  check(model: Readonly<Model>): boolean {
    const conversation = pick(model as Model, this.index);
    if (!conversation) return false;
    return model.options.steerIntoJump || this.mode !== "jump" || !conversation.parked || !steersWaiting(conversation);
  }

  /** A steer joins the running turn's next model call; the model keeps those plain (their effect is not modelled). */
  private kindFor(conversation: ModelConversation): MessageKind {
    return this.mode === "steer" && conversation.parked ? "plain" : this.kind;
  }

  protected async act(model: Model, real: Real): Promise<void> {
    const conversation = this.target(model);
    const kind = this.kindFor(conversation);
    const { text } = newMessage(model, kind);
    this.text = text;
    const expected: ErrorCode | null = conversation.deleted ? "not_found" : null;
    const outcome = await expectOutcome(`send ${this.mode} to ${conversation.label}`, expected, () =>
      real.harness.runtime.sendMessage(conversation.id, { text, mode: this.mode }),
    );
    if (!outcome) return;
    const status = sendInModel(model, conversation, this.mode, kind, outcome.message.id, text);
    if (outcome.message.status !== status) {
      throw new Error(`send ${this.mode} to ${conversation.label}: status ${outcome.message.status}, the model expected ${status}`);
    }
  }

  toString(): string {
    return `send(${this.name}, ${this.mode}, ${this.kind}${this.text ? ` "${this.text.split(" ")[0]}"` : ""})`;
  }
}

const SLOW = "[[delay:5]] [[stream:20]]";

/**
 * A message sent while a turn is really running (streaming, not parked): a slow turn is started
 * and, during it, a second message is sent with the mode, or the owner interrupts it.
 */
export class SendDuringRunCommand extends ConversationCommand {
  constructor(
    index: number,
    private readonly action: WaitingMode | "interrupt",
    private readonly kind: MessageKind,
  ) {
    super(index);
  }

  check(model: Readonly<Model>): boolean {
    const conversation = model.conversations.length ? model.conversations[this.index % model.conversations.length] : undefined;
    return conversation !== undefined && !conversation.deleted && !conversation.parked && conversation.waiting.length === 0;
  }

  protected async act(model: Model, real: Real): Promise<void> {
    const conversation = this.target(model);
    const runtime = real.harness.runtime;
    const slow = `${newMessage(model, "plain").text} ${SLOW}`;
    const first = await expectOutcome(`slow send to ${conversation.label}`, null, () => runtime.sendMessage(conversation.id, { text: slow, mode: "auto" }));
    conversation.acknowledged.set(first!.message.id, slow);
    conversation.held = false;
    if (first!.message.status !== "started") throw new Error(`the slow message did not start a turn: ${first!.message.status}`);
    if (this.action === "interrupt") {
      const turn = await expectOutcome(`interrupt ${conversation.label}`, null, () => runtime.interrupt(conversation.id));
      if (turn?.id !== first!.turn!.id) throw new Error(`interrupt answered turn ${turn?.id}, not the running ${first!.turn!.id}`);
      conversation.held = true;
      return;
    }
    const kind = this.action === "steer" ? "plain" : this.kind;
    const { text } = newMessage(model, kind);
    const second = await expectOutcome(`send ${this.action} during a turn of ${conversation.label}`, null, () =>
      runtime.sendMessage(conversation.id, { text, mode: this.action as WaitingMode }),
    );
    const expected = EXPECTED_STATUS[this.action];
    if (second!.message.status !== expected) throw new Error(`send ${this.action} during a turn: status ${second!.message.status}, expected ${expected}`);
    // The slow turn ends (completed, or interrupted by the jump) before the second message is read;
    // it then starts the next turn (a steer the turn did not read becomes the next turn, DESIGN §3).
    conversation.acknowledged.set(second!.message.id, text);
    model.counter += 1;
    conversation.waiting.push({ id: second!.message.id, text, kind, mode: this.action, position: model.counter });
    pumpModel(conversation);
  }

  toString(): string {
    return `duringRun(${this.name}, ${this.action}${this.action === "interrupt" || this.action === "steer" ? "" : `, ${this.kind}`})`;
  }
}

/** PATCH …/queue/:id: a new text, or a new mode (steer hands it to the turn, jump runs it next). */
export class EditWaitingCommand extends ConversationCommand {
  constructor(
    index: number,
    private readonly which: number,
    private readonly change: "text" | WaitingMode,
  ) {
    super(index);
  }

  /** Bug 4 (see known-bugs.model.test.ts): the default run does not make a message jump while steers wait. */
  check(model: Readonly<Model>): boolean {
    const conversation = pick(model as Model, this.index);
    if (!conversation) return false;
    const entry = conversation.waiting.length ? conversation.waiting[this.which % conversation.waiting.length] : undefined;
    return model.options.steerIntoJump || this.change !== "jump" || !entry || !steersWaiting(conversation, entry.id);
  }

  protected async act(model: Model, real: Real): Promise<void> {
    const conversation = this.target(model);
    const entry = conversation.waiting.length ? conversation.waiting[this.which % conversation.waiting.length] : undefined;
    // With nothing waiting, an acknowledged message that is no longer waiting (or none at all) must be not_found.
    const id = entry?.id ?? [...conversation.acknowledged.keys()][0] ?? "01JAAAAAAAAAAAAAAAAAAAAAAA";
    const expected: ErrorCode | null = conversation.deleted || !entry ? "not_found" : null;
    let mode = this.change === "text" ? undefined : this.change;
    // A steered message is read by the running turn; the model keeps steered messages plain.
    if (mode === "steer" && entry && entry.kind !== "plain" && conversation.parked) mode = "queue";
    const text = this.change === "text" ? `${newMessage(model, "plain").text} edited` : undefined;
    const patch = { ...(text !== undefined ? { text } : {}), ...(mode ? { mode } : {}) };
    await expectOutcome(`edit waiting ${id} of ${conversation.label}`, expected, () => real.harness.runtime.updateWaiting(conversation.id, id, patch));
    if (expected || !entry) return;
    if (text !== undefined) {
      entry.text = text;
      entry.kind = "plain";
      conversation.acknowledged.set(entry.id, text);
    }
    if (mode) entry.mode = mode;
    if (mode === "jump") {
      // Asking a waiting message to run: it interrupts the parked turn (if any) and runs next.
      abandonParked(model, conversation);
      conversation.held = false;
      pumpModel(conversation);
    }
  }

  toString(): string {
    return `editWaiting(${this.name}, #${this.which}, ${this.change})`;
  }
}

/** DELETE …/queue/:id. */
export class WithdrawWaitingCommand extends ConversationCommand {
  constructor(
    index: number,
    private readonly which: number,
  ) {
    super(index);
  }

  protected async act(model: Model, real: Real): Promise<void> {
    const conversation = this.target(model);
    const entry = conversation.waiting.length ? conversation.waiting[this.which % conversation.waiting.length] : undefined;
    const id = entry?.id ?? [...conversation.withdrawn][0] ?? [...conversation.acknowledged.keys()][0] ?? "01JAAAAAAAAAAAAAAAAAAAAAAA";
    const expected: ErrorCode | null = conversation.deleted || !entry ? "not_found" : null;
    await expectOutcome(`withdraw ${id} of ${conversation.label}`, expected, () => real.harness.runtime.withdrawWaiting(conversation.id, id));
    if (expected || !entry) return;
    conversation.waiting = conversation.waiting.filter((candidate) => candidate !== entry);
    conversation.acknowledged.delete(entry.id);
    conversation.withdrawn.add(entry.id);
  }

  toString(): string {
    return `withdraw(${this.name}, #${this.which})`;
  }
}

/** POST …/interrupt on the root agent: a parked turn ends interrupted; an idle one answers null. */
export class InterruptCommand extends ConversationCommand {
  check(model: Readonly<Model>): boolean {
    if (model.conversations.length === 0) return false;
    const conversation = model.conversations[this.index % model.conversations.length];
    // The owner interrupting while its own messages wait is the case of bug 1 (see the test file).
    return model.options.heldOwnerMessages || conversation.waiting.length === 0;
  }

  protected async act(model: Model, real: Real): Promise<void> {
    const conversation = this.target(model);
    const expected: ErrorCode | null = conversation.deleted ? "not_found" : null;
    const parkedTurn = conversation.parked?.turnId ?? null;
    const turn = await expectOutcome(`interrupt ${conversation.label}`, expected, () => real.harness.runtime.interrupt(conversation.id));
    if (expected) return;
    if ((turn?.id ?? null) !== parkedTurn) throw new Error(`interrupt answered turn ${turn?.id ?? null}, the model expected ${parkedTurn}`);
    abandonParked(model, conversation);
    conversation.held = true;
  }

  toString(): string {
    return `interrupt(${this.name})`;
  }
}
