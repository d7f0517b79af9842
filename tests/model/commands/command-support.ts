import type { AsyncCommand } from "fast-check";
import { errorResponse } from "@/lib/api/respond";
import { isAtriumError, type ErrorCode } from "@/lib/errors";
import type { CrashableRuntime } from "../../support/crashable-runtime";
import { checkAll } from "../invariants";
import { messageText, nextNumber, pick, type MessageKind, type Model, type ModelConversation } from "../model-state";
import { settle } from "../settle";

/**
 * How often each command ran (not skipped by check()) in this process, and the milliseconds
 * spent acting, settling and checking: printed with ATRIUM_MODEL_STATS.
 */
export const commandTally = new Map<string, { runs: number; act: number; settle: number; check: number }>();

function tally(name: string, [act, settle, check]: number[]): void {
  const entry = commandTally.get(name) ?? { runs: 0, act: 0, settle: 0, check: 0 };
  entry.runs += 1;
  entry.act += Math.round(act);
  entry.settle += Math.round(settle);
  entry.check += Math.round(check);
  commandTally.set(name, entry);
}

/** The system under test: a real Runtime on real files, which may be crashed and replaced. */
export interface Real {
  harness: CrashableRuntime;
}

/**
 * A command of the model-based test. `act` changes both the model and the real Runtime;
 * afterwards every command lets the system settle and checks every invariant (invariants.ts),
 * so a failure names the first step after which they no longer held.
 */
export abstract class ModelCommand implements AsyncCommand<Model, Real> {
  /** Filled in by run(): which conversation a generated index resolved to, for the report. */
  protected resolved = "";

  check(_model: Readonly<Model>): boolean {
    return true;
  }

  async run(model: Model, real: Real): Promise<void> {
    const started = performance.now();
    await this.act(model, real);
    const acted = performance.now();
    await settle(real.harness.runtime, model.conversations);
    const settled = performance.now();
    await learnParked(model, real);
    await checkAll(real.harness, model);
    tally(this.toString().replace(/\(.*$/, ""), [acted - started, settled - acted, performance.now() - settled]);
  }

  protected abstract act(model: Model, real: Real): Promise<void>;

  abstract toString(): string;
}

/** A command aimed at one conversation, picked by a generated number among all ever created. */
export abstract class ConversationCommand extends ModelCommand {
  constructor(protected readonly index: number) {
    super();
  }

  check(model: Readonly<Model>): boolean {
    return model.conversations.length > 0;
  }

  protected target(model: Model): ModelConversation {
    const conversation = pick(model, this.index)!;
    this.resolved = `${conversation.label}${conversation.deleted ? "(deleted)" : ""}`;
    return conversation;
  }

  protected get name(): string {
    return this.resolved || `#${this.index}`;
  }
}

function describeError(error: unknown): string {
  if (isAtriumError(error)) return `${errorResponse(error).status} ${error.code}: ${error.message}`;
  return error instanceof Error ? `${error.name}: ${error.message}\n${error.stack}` : String(error);
}

/**
 * Runs one call of the Runtime's API and holds it to what the model predicts: success (`null`)
 * or a 4xx AtriumError with that code. A 5xx-class error, or anything not an AtriumError, always fails.
 */
export async function expectOutcome<T>(what: string, expected: ErrorCode | null, call: () => Promise<T>): Promise<T | undefined> {
  let result: T;
  try {
    result = await call();
  } catch (error) {
    if (!isAtriumError(error)) throw new Error(`${what}: threw a non-AtriumError (a 500): ${describeError(error)}`, { cause: error });
    const status = errorResponse(error).status;
    if (status >= 500) throw new Error(`${what}: answered ${describeError(error)} (5xx)`, { cause: error });
    if (expected === null) throw new Error(`${what}: the model expected success, got ${describeError(error)}`, { cause: error });
    if (error.code !== expected) throw new Error(`${what}: the model expected ${expected}, got ${describeError(error)}`, { cause: error });
    return undefined;
  }
  if (expected !== null) throw new Error(`${what}: the model expected ${expected}, got success: ${JSON.stringify(result)?.slice(0, 300)}`);
  return result;
}

/** A new message of a kind: its unique number and text. */
export function newMessage(model: Model, kind: MessageKind): { n: number; text: string } {
  const n = nextNumber(model);
  return { n, text: messageText(kind, n) };
}

/**
 * The model knows a turn parked but not its ids: they are read from the Runtime once it settled
 * (checkOwnerState then holds the model to them), and the decision is remembered for later commands.
 */
export async function learnParked(model: Model, real: Real): Promise<void> {
  const runtime = real.harness.runtime;
  for (const conversation of model.conversations) {
    const parked = conversation.parked;
    if (conversation.deleted || !parked || parked.turnId !== "") continue;
    const open = runtime.listTurns(conversation.id).filter((turn) => turn.sessionId === conversation.rootSessionId && turn.endedAt === null);
    if (open.length !== 1) continue;
    parked.turnId = open[0].id;
    const pending =
      parked.on === "approval"
        ? (await runtime.listApprovals("pending")).filter((approval) => approval.conversationId === conversation.id)
        : (await runtime.listQuestions(conversation.id, "pending"));
    if (pending.length !== 1) continue;
    parked.decisionId = pending[0].id;
    model.decisions.push({ id: pending[0].id, conversation, kind: parked.on, state: "pending" });
  }
}

/** The parked turn of a conversation ends without its decision (interrupt, jump): what stays on record. */
export function abandonParked(model: Model, conversation: ModelConversation): void {
  const parked = conversation.parked;
  if (!parked) return;
  const decision = model.decisions.find((candidate) => candidate.id === parked.decisionId);
  if (decision) decision.state = decision.kind === "approval" ? "deny" : "cancelled";
  conversation.parked = null;
}
