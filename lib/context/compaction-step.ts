import { contextItems, planCompaction, requestSummary } from "./compaction";
import { countMessages } from "./tokens";
import { AtriumError } from "../errors";
import { conversationTokenTotals, lastCompactionOf } from "../store/queries";
import type { ConversationOwner } from "../ports/owner-port";
import { contextInfo, fixedTokens, measureUsage, requestFrame, type RequestFrame, type RequestShape } from "./context-usage";
import { itemsToMessages } from "./history";
import type { SessionState } from "../ports/session-state";
import { TurnFailure } from "./turn-failure";

export type CompactionOutcome = { compacted: true; itemId: string } | { compacted: false; reason: string };

/**
 * Summarizes the older part of a session's context with the compact model (DESIGN §4)
 * and records where the kept tail starts. The summary item's text is the model's answer.
 */
export async function compactSession(
  actor: ConversationOwner,
  session: SessionState,
  options: {
    turnId: string | null;
    modelId: string;
    signal: AbortSignal;
  },
): Promise<CompactionOutcome> {
  const context = actor.context;
  const usage = measureUsage(actor, session, options.modelId);
  const items = contextItems(session.items, session.compaction);
  const plan = planCompaction(items, (item) => countMessages(itemsToMessages([item]), usage.counter), usage.contextWindow);
  if (!plan) return { compacted: false, reason: "nothing is older than the part of the history that is always kept" };
  const scope = { sessionId: session.id, turnId: options.turnId ?? undefined };
  actor.publish({ type: "compaction.started", ...scope });
  const agent = context.agent(session.agent, actor.conversation());
  const compactModelId = agent?.compactModel ?? context.models.get(options.modelId)?.compactModel ?? options.modelId;
  let text: string;
  try {
    text = await requestSummary({
      model: context.models.languageModel(compactModelId),
      head: itemsToMessages(plan.head),
      signal: options.signal,
      headers: options.turnId ? { "x-atrium-turn-id": `${options.turnId}-compaction` } : undefined,
      maxOutputTokens: context.models.get(compactModelId)?.maxOutputTokens,
    });
  } catch (error) {
    actor.publish({ type: "compaction.completed", ...scope, itemId: null });
    if (options.signal.aborted) throw error;
    const message = `compaction with ${compactModelId} failed: ${error instanceof Error ? error.message : String(error)}`;
    throw new TurnFailure({ code: "compaction_failed", message });
  }
  const tail = items.slice(items.indexOf(plan.firstKept));
  // Before and after are both estimated the same way, so the two figures compare.
  const fixed = fixedTokens(requestFrame(actor, session), usage.counter);
  const summary = await actor.recordCompaction(session, {
    turnId: options.turnId,
    text,
    firstKeptItemId: plan.firstKept.id,
    tokensBefore: fixed + countMessages(itemsToMessages(items), usage.counter),
    tokensAfter: (item) => fixed + countMessages(itemsToMessages([item, ...tail]), usage.counter),
    signal: options.signal,
  });
  actor.publish({ type: "compaction.completed", ...scope, itemId: summary.id });
  publishContext(actor, session, options.modelId);
  return { compacted: true, itemId: summary.id };
}

/**
 * Before a model call: compact when the request would reach the threshold, and fail with
 * context_overflow when instructions plus the current input cannot fit even then. `request` is
 * the call's request as built from the session now (measured, not built again); the answer says
 * whether a compaction changed the session, so that request no longer holds.
 */
export async function ensureRoom(
  actor: ConversationOwner,
  session: SessionState,
  request: RequestShape,
  options: {
    turnId: string;
    modelId: string;
    signal: AbortSignal;
    inputIds: readonly string[];
    force: boolean;
    /** Awaited before the compaction writes anything (a turn's start may still be on its way to disk). */
    beforeCompacting?: () => Promise<void>;
  },
): Promise<{ compacted: boolean }> {
  let usage = measureUsage(actor, session, options.modelId, request);
  assertInputFits(session, request, usage, options.inputIds);
  const lastItem = session.items.at(-1);
  // Right after a compaction nothing new can be summarized; compacting again would loop.
  if (lastItem?.kind === "compaction_summary") return { compacted: false };
  if (!options.force && usage.usedTokens < usage.threshold) return { compacted: false };
  await options.beforeCompacting?.();
  await compactSession(actor, session, { turnId: options.turnId, modelId: options.modelId, signal: options.signal });
  usage = measureUsage(actor, session, options.modelId);
  if (usage.usedTokens > usage.contextWindow - usage.maxOutputTokens) {
    throw new TurnFailure({
      code: "context_overflow",
      message: `after compaction the request still needs ${usage.usedTokens} tokens; the model's window is ${usage.contextWindow} with ${usage.maxOutputTokens} kept for output`,
    });
  }
  return { compacted: true };
}

function assertInputFits(session: SessionState, frame: Pick<RequestShape, "system" | "tools">, usage: ReturnType<typeof measureUsage>, inputIds: readonly string[]): void {
  const inputs = session.items.filter((item) => inputIds.includes(item.id));
  const fixed = fixedTokens(frame, usage.counter);
  const input = countMessages(itemsToMessages(inputs), usage.counter);
  const room = usage.contextWindow - usage.maxOutputTokens;
  if (fixed + input > room) {
    throw new TurnFailure({
      code: "context_overflow",
      message: `the instructions (${fixed} tokens) and the current input (${input} tokens) need ${fixed + input} tokens, more than the ${room} the model can take (window ${usage.contextWindow}, ${usage.maxOutputTokens} kept for output); nothing was dropped`,
    });
  }
}

/** `frame`: the root session's frame as the caller just built it, so it is not built again. */
export function publishContext(actor: ConversationOwner, session: SessionState, modelId: string, frame?: Pick<RequestFrame, "catalogTokens">): void {
  if (session.id !== actor.rootSessionId) return;
  actor.publish({ type: "context.updated", sessionId: session.id, context: rootContext(actor, modelId, frame) });
}

export function rootContext(actor: ConversationOwner, modelId: string, frame?: Pick<RequestFrame, "catalogTokens">) {
  const db = actor.context.store.index;
  const session = actor.root;
  const last = lastCompactionOf(db, session.id);
  return contextInfo(
    actor,
    session,
    modelId,
    conversationTokenTotals(db, actor.id),
    last ? { itemId: last.itemId, at: last.at, tokensBefore: last.tokensBefore, tokensAfter: last.tokensAfter } : null,
    frame,
  );
}

/** Manual compaction (POST …/compact, /compact, Compact now): only when nothing runs or waits. */
export async function compactNow(actor: ConversationOwner): Promise<CompactionOutcome> {
  const controller = await actor.beginManualCompaction();
  try {
    // The model call runs outside the conversation's queue; only its result is recorded, by the owner.
    return await compactSession(actor, actor.root, { turnId: null, modelId: actor.conversation().model, signal: controller.signal });
  } catch (error) {
    if (actor.deleted) throw new AtriumError("not_found", `conversation ${actor.id} was deleted`);
    if (controller.signal.aborted) return { compacted: false, reason: "the owner interrupted the compaction" };
    if (error instanceof TurnFailure) throw new AtriumError("compaction_failed", error.message);
    throw error;
  } finally {
    await actor.endManualCompaction(controller).catch(() => undefined);
  }
}
