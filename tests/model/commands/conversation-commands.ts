import type { ErrorCode } from "@/lib/errors";
import type { Item } from "@/lib/events/entities";
import type { Runtime } from "@/lib/engine/runtime";
import { turnOutcome, type MessageKind, type Model, type ModelConversation } from "../model-state";
import { ConversationCommand, expectOutcome, ModelCommand, newMessage, type Real } from "./command-support";

function newConversation(model: Model, id: string, rootSessionId: string, title: string, copy = false): ModelConversation {
  const conversation: ModelConversation = {
    label: `c${model.conversations.length + 1}`,
    id,
    rootSessionId,
    title,
    archived: false,
    deleted: false,
    parked: null,
    waiting: [],
    held: false,
    acknowledged: new Map(),
    withdrawn: new Set(),
    copy,
  };
  model.conversations.push(conversation);
  return conversation;
}

/** POST /api/conversations {text}: the first message starts the first turn. */
export class CreateCommand extends ModelCommand {
  private label = "";

  constructor(private readonly kind: MessageKind) {
    super();
  }

  protected async act(model: Model, real: Real): Promise<void> {
    const { text } = newMessage(model, this.kind);
    const created = await expectOutcome("create", null, () => real.harness.runtime.createConversation({ text }));
    const conversation = newConversation(model, created!.conversation.id, created!.conversation.rootSessionId, created!.conversation.title);
    this.label = conversation.label;
    conversation.acknowledged.set(created!.message.id, text);
    const outcome = turnOutcome([{ id: created!.message.id, text, kind: this.kind }]);
    if (outcome !== "completed") conversation.parked = { on: outcome, turnId: "", decisionId: "" };
  }

  toString(): string {
    return `create(${this.kind}${this.label ? `→${this.label}` : ""})`;
  }
}

/** PATCH {title} — allowed in any state of the conversation. */
export class RenameCommand extends ConversationCommand {
  protected async act(model: Model, real: Real): Promise<void> {
    const conversation = this.target(model);
    const title = `title ${model.counter + 1}`;
    model.counter += 1;
    const updated = await expectOutcome(`rename ${conversation.label}`, conversation.deleted ? "not_found" : null, () =>
      real.harness.runtime.updateConversation(conversation.id, { title }),
    );
    if (!updated) return;
    conversation.title = title;
    if (updated.title !== title) throw new Error(`rename: the title is ${updated.title}`);
  }

  toString(): string {
    return `rename(${this.name})`;
  }
}

/** PATCH {archived}. */
export class ArchiveCommand extends ConversationCommand {
  constructor(
    index: number,
    private readonly archived: boolean,
  ) {
    super(index);
  }

  protected async act(model: Model, real: Real): Promise<void> {
    const conversation = this.target(model);
    const updated = await expectOutcome(`archive=${this.archived} ${conversation.label}`, conversation.deleted ? "not_found" : null, () =>
      real.harness.runtime.updateConversation(conversation.id, { archived: this.archived }),
    );
    if (!updated) return;
    conversation.archived = this.archived;
    if (updated.archived !== this.archived) throw new Error(`archive: archived is ${updated.archived}`);
    const listed = (await real.harness.runtime.listConversations({ archived: this.archived ? "true" : "false", offset: 0, limit: 500 })).conversations;
    if (!listed.some((candidate) => candidate.id === conversation.id)) throw new Error(`${conversation.label} is not listed with archived=${this.archived}`);
  }

  toString(): string {
    return `${this.archived ? "archive" : "unarchive"}(${this.name})`;
  }
}

/** The owner's messages of the root agent that a fork copies: those of finished turns, in order. */
function finishedOwnerMessages(runtime: Runtime, conversation: ModelConversation): Item[] {
  const open = new Set(runtime.listTurns(conversation.id).filter((turn) => turn.endedAt === null).map((turn) => turn.id));
  return runtime
    .listItems(conversation.id, { limit: 500 })
    .items.filter((item) => item.kind === "user_message" && item.origin === "owner" && !open.has(item.turnId ?? ""));
}

/** Registers a fork or restart in the model: its copied owner messages count as acknowledged. */
function registerCopy(model: Model, runtime: Runtime, id: string, expectedTexts: string[], what: string): ModelConversation {
  const created = runtime.getConversation(id);
  const copy = newConversation(model, id, created.rootSessionId, created.title, true);
  const copied = runtime.listItems(id, { limit: 500 }).items.filter((item) => item.kind === "user_message" && item.origin === "owner");
  const texts = copied.map((item) => item.text ?? "");
  if (JSON.stringify(texts) !== JSON.stringify(expectedTexts)) {
    throw new Error(`${what}: copied the owner's messages ${JSON.stringify(texts)}, expected ${JSON.stringify(expectedTexts)}`);
  }
  for (const item of copied) copy.acknowledged.set(item.id, item.text ?? "");
  return copy;
}

/** POST …/fork: a copy of the root agent's finished history; the original is unchanged. */
export class ForkCommand extends ConversationCommand {
  private label = "";

  protected async act(model: Model, real: Real): Promise<void> {
    const conversation = this.target(model);
    const runtime = real.harness.runtime;
    const expectedTexts = conversation.deleted ? [] : finishedOwnerMessages(runtime, conversation).map((item) => item.text ?? "");
    const forked = await expectOutcome(`fork ${conversation.label}`, conversation.deleted ? "not_found" : null, () => runtime.fork(conversation.id, {}));
    if (!forked) return;
    this.label = registerCopy(model, runtime, forked.id, expectedTexts, `fork of ${conversation.label}`).label;
    if (forked.forkedFrom?.conversationId !== conversation.id) throw new Error(`fork: forkedFrom is ${JSON.stringify(forked.forkedFrom)}`);
  }

  toString(): string {
    return `fork(${this.name}${this.label ? `→${this.label}` : ""})`;
  }
}

/** POST …/rewind {itemId, restoreFiles}: restart from one of the owner's earlier messages. */
export class RewindCommand extends ConversationCommand {
  private label = "";

  constructor(
    index: number,
    private readonly which: number,
    private readonly restoreFiles: boolean,
  ) {
    super(index);
  }

  protected async act(model: Model, real: Real): Promise<void> {
    const conversation = this.target(model);
    const runtime = real.harness.runtime;
    const candidates = conversation.deleted ? [] : finishedOwnerMessages(runtime, conversation);
    const item = candidates.length ? candidates[this.which % candidates.length] : undefined;
    const itemId = item?.id ?? "01JAAAAAAAAAAAAAAAAAAAAAAA";
    // Files are not put back while a turn of the conversation (a parked one too) could still change them.
    const expected: ErrorCode | null = conversation.deleted || !item ? "not_found" : this.restoreFiles && conversation.parked ? "turn_running" : null;
    const rewound = await expectOutcome(`rewind ${conversation.label} to ${itemId}`, expected, () =>
      runtime.rewind(conversation.id, itemId, { restoreFiles: this.restoreFiles }),
    );
    if (!rewound || !item) return;
    if (rewound.draft !== item.text) throw new Error(`rewind: the draft is ${JSON.stringify(rewound.draft)}, not the message's text`);
    // The shell commands of the model only echo: nothing in the working directory changes to put back.
    if (rewound.restored.length !== 0) throw new Error(`rewind: restored ${JSON.stringify(rewound.restored)}`);
    const before = candidates.slice(0, candidates.indexOf(item)).map((candidate) => candidate.text ?? "");
    this.label = registerCopy(model, runtime, rewound.conversation.id, before, `restart of ${conversation.label}`).label;
  }

  toString(): string {
    return `rewind(${this.name}, #${this.which}${this.restoreFiles ? ", restoreFiles" : ""}${this.label ? `→${this.label}` : ""})`;
  }
}

/** POST …/compact: only when nothing runs or waits (else not_idle). */
export class CompactCommand extends ConversationCommand {
  protected async act(model: Model, real: Real): Promise<void> {
    const conversation = this.target(model);
    const runtime = real.harness.runtime;
    // Subagent reports are not modelled: a report held back after an interrupt also counts as waiting.
    const reports = conversation.deleted ? 0 : runtime.listWaiting(conversation.id).filter((entry) => entry.origin !== "owner").length;
    const expected: ErrorCode | null = conversation.deleted
      ? "not_found"
      : conversation.parked || conversation.waiting.length > 0 || reports > 0
        ? "not_idle"
        : null;
    await expectOutcome(`compact ${conversation.label}`, expected, () => runtime.compact(conversation.id));
  }

  toString(): string {
    return `compact(${this.name})`;
  }
}

/** DELETE: refused while a turn runs or is parked (turn_running). */
export class DeleteCommand extends ConversationCommand {
  protected async act(model: Model, real: Real): Promise<void> {
    const conversation = this.target(model);
    const expected: ErrorCode | null = conversation.deleted ? "not_found" : conversation.parked ? "turn_running" : null;
    await expectOutcome(`delete ${conversation.label}`, expected, () => real.harness.runtime.deleteConversation(conversation.id));
    if (expected) return;
    conversation.deleted = true;
    conversation.waiting = [];
  }

  toString(): string {
    return `delete(${this.name})`;
  }
}
