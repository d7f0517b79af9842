import fs from "node:fs";
import os from "node:os";

/**
 * The model of the model-based tests: what the owner has been told (acknowledged messages,
 * waiting lists, parked turns) and what DESIGN §3 says must follow from it. Commands update it
 * as they update the real Runtime; the invariants compare the two after every step.
 */

/**
 * Where the model tests' homes and replay copies go: a memory filesystem when there is one
 * (every step rebuilds an index from scratch; a killed process loses nothing the kernel holds,
 * so flushes reaching a disk change nothing the tests look at), else the OS temp dir.
 * ATRIUM_MODEL_SCRATCH overrides it (e.g. a real disk).
 */
export const SCRATCH = process.env.ATRIUM_MODEL_SCRATCH ?? (fs.existsSync("/dev/shm") ? "/dev/shm" : os.tmpdir());

/** What a message makes the offline model do (DESIGN §7 directives). */
export type MessageKind = "plain" | "shell" | "ask" | "spawn";

export type WaitingMode = "steer" | "queue" | "jump";

export interface ModelMessage {
  id: string;
  text: string;
  kind: MessageKind;
}

export interface ModelWaiting extends ModelMessage {
  mode: WaitingMode;
  /** The message's position on the list (the queue.added seq orders it; ours is a counter). */
  position: number;
}

export interface Parked {
  on: "approval" | "question";
  turnId: string;
  /** The approval or question the turn waits on; learnt from the Runtime once it parks. */
  decisionId: string;
}

export interface ModelConversation {
  /** "c1", "c2" …: how commands' toString() names it. */
  label: string;
  id: string;
  rootSessionId: string;
  title: string;
  archived: boolean;
  deleted: boolean;
  /** The root agent's turn parked on an approval or a question, if any. */
  parked: Parked | null;
  /** The owner's waiting messages, in list order. */
  waiting: ModelWaiting[];
  /** After the owner interrupts, the owner's own waiting messages wait too (DESIGN §3, Interrupt). */
  held: boolean;
  /** Every message the Runtime acknowledged and the owner did not withdraw, by id, with its current text. */
  acknowledged: Map<string, string>;
  withdrawn: Set<string>;
  /** A fork or restart of another conversation. */
  copy: boolean;
}

export interface DecisionRecord {
  id: string;
  conversation: ModelConversation;
  kind: "approval" | "question";
  /** "pending", or the decision the model expects on record. */
  state: "pending" | "approve" | "deny" | "answered" | "cancelled";
  answer?: string;
}

export interface Model {
  conversations: ModelConversation[];
  decisions: DecisionRecord[];
  /** Counter for message texts and positions, so every text is unique and shrinking keeps them stable. */
  counter: number;
  /** Options the run was started with (see the test file). */
  options: ModelOptions;
}

/**
 * Cases where the Runtime was seen to differ from DESIGN (reported bugs; see the test file).
 * The default run does not set them up; ATRIUM_MODEL_BUGS=all (or a comma list) lets the
 * commands reach them, and the model then expects what DESIGN says.
 */
export interface ModelOptions {
  /** Bug 1: the owner interrupts while its own messages wait. */
  heldOwnerMessages: boolean;
  /** Bug 2: a restart or crash while steered messages wait on a parked turn. */
  steerAfterRestart: boolean;
  /** Bug 4: a jump (sent, or a waiting message made to jump) while steered messages wait. */
  steerIntoJump: boolean;
}

export function modelOptions(bugs: string | undefined): ModelOptions {
  // The four bugs are fixed (issue 22): every run reaches their cases unless ATRIUM_MODEL_BUGS narrows them ("none").
  const named = new Set((bugs ?? "all").split(",").map((name) => name.trim()));
  const all = named.has("all") || named.has("1");
  return {
    heldOwnerMessages: all || named.has("heldOwnerMessages"),
    steerAfterRestart: all || named.has("steerAfterRestart"),
    steerIntoJump: all || named.has("steerIntoJump"),
  };
}

/** Whether a jump now would set up bug 4: steered messages (other than `except`) waiting in the conversation. */
export function steersWaiting(conversation: ModelConversation, except?: string): boolean {
  return conversation.waiting.some((entry) => entry.mode === "steer" && entry.id !== except);
}

/** Whether a restart now would set up bug 2: steered messages waiting on a parked turn. */
export function steersOnParkedTurn(model: Readonly<Model>): boolean {
  return model.conversations.some((conversation) => !conversation.deleted && conversation.parked && conversation.waiting.some((entry) => entry.mode === "steer"));
}

export function emptyModel(options: ModelOptions): Model {
  return { conversations: [], decisions: [], counter: 0, options };
}

export function nextNumber(model: Model): number {
  model.counter += 1;
  return model.counter;
}

/** The text a message of this kind carries: unique (its number) and driving the offline model. */
export function messageText(kind: MessageKind, n: number): string {
  switch (kind) {
    case "plain":
      return `m${n} [[stream:2]]`;
    case "shell":
      return `m${n} [[tool:shell ${JSON.stringify({ command: `echo out${n}` })}]]`;
    case "ask":
      return `m${n} [[tool:ask_user ${JSON.stringify({ question: `q${n}?`, choices: ["yes", "no"] })}]]`;
    case "spawn":
      return `m${n} [[tool:spawn_agent ${JSON.stringify({ task: `task${n} [[stream:1]]` })}]]`;
  }
}

export function live(model: Model): ModelConversation[] {
  return model.conversations.filter((conversation) => !conversation.deleted);
}

/** Picks a conversation by a generated number; deleted ones stay pickable (their commands answer not_found). */
export function pick(model: Model, index: number): ModelConversation | undefined {
  if (model.conversations.length === 0) return undefined;
  return model.conversations[index % model.conversations.length];
}

/**
 * The order a session's waiting messages start in (DESIGN §3, inbox.ts): jumps first, then a
 * steer whose turn ended unread (it "becomes the next turn", ahead of messages queued before it),
 * then the queue, each by position. Every message here is the owner's. The model pumps only once
 * nothing runs or is parked, so a steer still waiting then is one its turn never read.
 */
export function startOrder(waiting: readonly ModelWaiting[]): ModelWaiting[] {
  const rank = (entry: ModelWaiting) => (entry.mode === "jump" ? 0 : entry.mode === "steer" ? 1 : 2);
  return [...waiting].sort((a, b) => rank(a) - rank(b) || a.position - b.position);
}

/** What one turn started from `inputs` leaves the root agent doing once it settles. */
export function turnOutcome(inputs: readonly ModelMessage[]): "completed" | "approval" | "question" {
  // A turn's offline model acts on its first input; later ones (steers) are plain by construction.
  const kind = inputs[0].kind;
  if (kind === "shell") return "approval";
  if (kind === "ask") return "question";
  return "completed";
}

/**
 * Runs the model's inbox the way DESIGN §3 says the owner's does while the root agent is idle:
 * the next waiting message starts a turn; a turn that parks stops the chain. Returns the inputs
 * of the turn left parked, if any, so the caller can learn its ids from the Runtime.
 */
export function pumpModel(conversation: ModelConversation): ModelMessage[] | null {
  while (!conversation.parked && !conversation.held && !conversation.deleted) {
    const ordered = startOrder(conversation.waiting);
    const head = ordered[0];
    if (!head) return null;
    const inputs = head.mode === "steer" ? ordered.filter((entry) => entry.mode === "steer") : [head];
    conversation.waiting = conversation.waiting.filter((entry) => !inputs.includes(entry));
    const outcome = turnOutcome(inputs);
    if (outcome !== "completed") {
      conversation.parked = { on: outcome, turnId: "", decisionId: "" };
      return inputs;
    }
  }
  return null;
}

/** The parked turn goes on (approved, denied, answered): it reads the steers waiting for it, completes, and the inbox runs. */
export function resumeParked(conversation: ModelConversation): void {
  conversation.parked = null;
  conversation.waiting = conversation.waiting.filter((entry) => entry.mode !== "steer");
  pumpModel(conversation);
}

export function describeWaiting(conversation: ModelConversation): string {
  return conversation.waiting.map((entry) => `${entry.mode}:${entry.text.split(" ")[0]}`).join(",");
}
