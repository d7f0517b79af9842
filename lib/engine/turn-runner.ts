import type { EngineOwner } from "./engine-owner";
import type { Item, Turn } from "../events/entities";
import { TURN_ID_HEADER } from "../models/offline-plan";
import { asStorageError, isStorageError } from "../errors";
import type { TurnError } from "../store/records";
import type { InterruptReason, ItemFields, SessionState, TurnHandle } from "../ports/owner-port";
import { ensureRoom, publishContext } from "../context/compaction-step";
import { estimateRequest, nextRequest } from "../context/context-usage";
import { tokenCounterFor } from "../context/tokens";
import { checkpointTurnStart } from "../checkpoints/checkpoint-hooks";
import { runModelStep, type StepResult } from "./model-step";
import { callModelWithRetries } from "./model-retries";
import { handleToolCall } from "../tools/tool-dispatch";
import { TurnFailure } from "../context/turn-failure";
import { TurnProgress } from "./turn-progress";
import { UnrecordedTurnError } from "./unrecorded-turn";

export type { InterruptReason } from "../ports/owner-port";

/** Progress checkpoints of streaming items: at most one write per item every 2 s (DESIGN §2). */
const CHECKPOINT_INTERVAL_MS = 2000;

/**
 * Runs one turn of one session: read steered messages, call the model, run the tools it
 * asks for, repeat until it answers. Each loop step starts from the items on record,
 * so a turn parked for an approval resumes the same way after a restart.
 */
export class TurnRunner implements TurnHandle {
  readonly controller = new AbortController();
  reason: InterruptReason | null = null;
  /** Set by the compact_context tool: compact before the next model call. */
  compactRequested = false;
  /** The turn loop is over and its end is being recorded. */
  closing = false;
  /** Set when a record of the turn could not be written: the turn ends failed with this code. */
  storageFailure: TurnError | null = null;
  closeAttempts = 0;
  noticeWritten = false;
  settledAlready = false;
  private parkedWake: (() => void) | null = null;
  private settled!: () => void;
  readonly finished = new Promise<void>((resolve) => (this.settled = resolve));
  private settleRecorded!: (recorded: boolean) => void;
  readonly recorded = new Promise<boolean>((resolve) => (this.settleRecorded = resolve));
  onRecord = false;
  private readonly progress: TurnProgress;

  /** `recorded`: whether the turn's `turn.started` is already on disk (a resumed turn); else the start command says so. */
  constructor(
    readonly actor: EngineOwner,
    readonly session: SessionState,
    readonly turn: Turn,
    recorded: boolean,
  ) {
    this.progress = new TurnProgress(actor, session, turn);
    if (recorded) this.confirmRecorded();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  start(): void {
    this.run().catch((error: unknown) => {
      // A store failure (disk error, or the store closed under a stopping server), or the end of a
      // turn whose start the disk refused, which the owner did not record: that turn never was.
      if (!(error instanceof UnrecordedTurnError)) this.actor.context.log(`turn ${this.turn.id} could not be recorded: ${messageOf(error)}`);
      this.settle();
    });
  }

  interrupt(reason: InterruptReason): void {
    if (this.reason) return;
    this.reason = reason;
    this.controller.abort(new Error(reason.message));
    this.parkedWake?.();
  }

  /** A record of this turn could not be written: the turn stops and ends failed with the storage code. */
  failOnStorage(error: TurnError): void {
    this.storageFailure ??= error;
    if (!this.controller.signal.aborted) this.controller.abort(new Error(error.message));
    this.parkedWake?.();
  }

  /** The turn's `turn.started` is on disk: what the turn writes may follow it. */
  confirmRecorded(): void {
    this.onRecord = true;
    this.settleRecorded(true);
  }

  /** The disk refused the turn's `turn.started`: the turn stops, and nothing of it is written. */
  discard(): void {
    if (!this.controller.signal.aborted) this.controller.abort(new Error("the turn's start could not be recorded"));
    this.settleRecorded(false);
    this.parkedWake?.();
  }

  /** Before a compaction tells clients of the turn: its start is on disk, or the turn was dropped. */
  private async untilRecorded(): Promise<void> {
    if (!(await this.recorded)) throw this.signal.reason;
  }

  settle(): void {
    this.settledAlready = true;
    this.settled();
  }

  /** Parks the turn until `wake` is called by a decision or an interrupt. */
  async park(status: "waiting_approval" | "waiting_user", ready: (wake: () => void) => void): Promise<void> {
    this.setStatus(status);
    await new Promise<void>((resolve) => {
      this.parkedWake = resolve;
      ready(resolve);
    });
    this.parkedWake = null;
    if (!this.signal.aborted) this.setStatus("running");
  }

  private setStatus(status: Turn["status"]): void {
    this.actor.report({ type: "turn_status", sessionId: this.session.id, turnId: this.turn.id, status });
  }

  private async run(): Promise<void> {
    let status: "completed" | "failed" | "interrupted" = "completed";
    let error: TurnError | null = null;
    // The timer only enqueues a command: the checkpoint runs in the conversation's queue.
    const checkpoints = setInterval(() => {
      this.actor
        .checkpointTurn(this.session.id, this.turn.id)
        .catch((error: unknown) => {
          this.actor.context.log(`checkpoint of turn ${this.turn.id} failed: ${messageOf(error)}`);
          if (isStorageError(error)) this.failOnStorage({ code: error.code, message: error.message });
        });
    }, CHECKPOINT_INTERVAL_MS);
    try {
      await checkpointTurnStart(this);
      for (;;) {
        if (this.signal.aborted) break;
        const pending = this.session.items.filter(
          (item) => item.turnId === this.turn.id && item.kind === "tool_call" && item.status === "waiting",
        );
        if (pending.length > 0) {
          for (const item of pending) {
            if (this.signal.aborted) break;
            await handleToolCall(this, item);
          }
          continue;
        }
        if (this.signal.aborted) break;
        // Steers are read right before a model call, never while a tool call still waits (a parked turn).
        await this.actor.takeSteers(this.session, this.turn);
        const step = await callModelWithRetries(this, (attemptItems) => this.callModel(attemptItems));
        if (step.aborted || this.signal.aborted) break;
        if (step.toolCalls === 0) break;
      }
    } catch (caught) {
      if (isStorageError(caught)) {
        status = "failed";
        error = { code: caught.code, message: caught.message };
        this.storageFailure = error;
        this.actor.context.log(`turn ${this.turn.id} failed: ${error.code}: ${error.message}`);
      } else if (!this.signal.aborted) {
        status = "failed";
        error = caught instanceof TurnFailure ? caught.error : { code: "engine_error", message: messageOf(caught) };
        this.actor.context.log(`turn ${this.turn.id} failed: ${error.code}: ${error.message}`);
      }
    } finally {
      clearInterval(checkpoints);
    }
    if (this.signal.aborted && !this.storageFailure) {
      status = "interrupted";
      error = this.reason?.code === "server_stopped" ? { code: "server_stopped", message: this.reason.message } : null;
    }
    await this.actor.finishTurn(this, status, error, this.reason);
  }

  private async callModel(attemptItems: Item[]): Promise<StepResult> {
    const context = this.actor.context;
    let model;
    try {
      model = context.models.languageModel(this.turn.model);
    } catch (caught) {
      throw new TurnFailure({ code: "missing_model", message: messageOf(caught) });
    }
    // Loaded before the room estimate, which counts them; a database failure is not a model error.
    await context.store.files.prepareAttachments(this.actor.id, this.session.items.flatMap((item) => item.attachments ?? [])).catch(asStorageError);
    // Built once: measured for room, sent, and counted for the context ring; again only after a compaction.
    let request = nextRequest(this.actor, this.session);
    const room = await ensureRoom(this.actor, this.session, request, {
      turnId: this.turn.id,
      modelId: this.turn.model,
      signal: this.signal,
      inputIds: this.turn.inputMessageIds,
      force: this.compactRequested,
      beforeCompacting: () => this.untilRecorded(),
    });
    this.compactRequested = false;
    const modelConfig = context.models.get(this.turn.model);
    if (room.compacted) request = nextRequest(this.actor, this.session);
    const coveredItems = this.session.items.length;
    let streaming: Item | null = null;
    let reasoning: Item | null = null;
    const create = async (fields: ItemFields) => {
      const item = await this.actor.createItem(this.session, fields);
      attemptItems.push(item);
      return item;
    };
    const step = await runModelStep(
      {
        model,
        system: request.system,
        messages: request.messages,
        tools: request.tools,
        signal: this.signal,
        headers: { [TURN_ID_HEADER]: this.turn.id },
        providerOptions: context.models.providerOptions(this.turn.model, this.turn.effort),
        maxOutputTokens: modelConfig?.maxOutputTokens,
      },
      {
        reasoningStart: async (providerMetadata) => {
          reasoning = await create({ turnId: this.turn.id, kind: "reasoning", status: "streaming", text: "", providerMetadata });
        },
        reasoningDelta: (text) => this.appendText(reasoning, text, "reasoning"),
        reasoningEnd: async (providerMetadata) => {
          if (reasoning) {
            await this.actor.completeItem(this.session, reasoning, {
              status: "completed",
              text: reasoning.text,
              providerMetadata: providerMetadata ?? reasoning.providerMetadata,
            });
          }
          reasoning = null;
        },
        textStart: async () => {
          streaming = await create({ turnId: this.turn.id, kind: "assistant_message", status: "streaming", text: "" });
        },
        textDelta: (text) => this.appendText(streaming, text, "text"),
        textEnd: async () => {
          if (streaming) await this.actor.completeItem(this.session, streaming, { status: "completed", text: streaming.text });
          streaming = null;
        },
        toolCall: async (call) => {
          await create({
            turnId: this.turn.id,
            kind: "tool_call",
            status: "waiting",
            toolName: call.toolName,
            toolCallId: call.toolCallId,
            input: call.input,
          });
        },
      },
    );
    const applied = step.providerMetadata?.openai?.reasoningContext;
    this.actor.report({
      type: "model_usage",
      sessionId: this.session.id,
      turnId: this.turn.id,
      inputTokens: step.usage.inputTokens,
      outputTokens: step.usage.outputTokens,
      coveredItems,
      estimatedInput: step.usage.inputTokens === null ? 0 : estimateRequest(request, tokenCounterFor(modelConfig?.provider)),
      reasoningContext: applied === "all_turns" || applied === "current_turn" ? applied : undefined,
    });
    // A step can end while the turn's start is still being flushed: its figure is told after turn.started, or never (a refused start).
    if (this.onRecord) publishContext(this.actor, this.session, this.turn.model, request);
    else void this.recorded.then((onRecord) => onRecord && publishContext(this.actor, this.session, this.turn.model, request));
    return step;
  }

  private appendText(item: Item | null, delta: string, field: "text" | "reasoning"): void {
    if (item) this.actor.report({ type: "item_delta", sessionId: this.session.id, turnId: this.turn.id, itemId: item.id, field, delta });
  }

  appendOutput(item: Item, delta: string): void {
    this.progress.appendOutput(item, delta);
  }

  writeCheckpoint(): Promise<void> {
    return this.progress.writeCheckpoint();
  }

  markStarted(item: Item): Promise<void> {
    return this.progress.markStarted(item);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
