import type { LanguageModelV3StreamPart, LanguageModelV3StreamResult } from "@ai-sdk/provider";
import { aiSdk } from "../lazy-packages";
import { isPushable, type PushableStreamResult } from "../models/pushed-parts";
import { modelCallOptions, toolCallInput, type ModelCallInput } from "./model-call";

type ProviderMetadata = Record<string, Record<string, unknown>> | undefined;

export interface StepSink {
  reasoningStart(providerMetadata: ProviderMetadata): Promise<void>;
  reasoningDelta(text: string): void;
  reasoningEnd(providerMetadata: ProviderMetadata): Promise<void>;
  textStart(): Promise<void>;
  textDelta(text: string): void;
  textEnd(): Promise<void>;
  toolCall(call: { toolCallId: string; toolName: string; input: unknown }): Promise<void>;
}

export type StepRequest = ModelCallInput;

export interface StepResult {
  usage: { inputTokens: number | null; outputTokens: number };
  /** What the provider said about the step (e.g. openai.reasoningContext, the mode it applied). */
  providerMetadata: ProviderMetadata;
  toolCalls: number;
  aborted: boolean;
}

/** Parts that count as output: a stream that ends with none of them and no finish is an error. */
const OUTPUT_PARTS = new Set<string>([
  "file",
  "source",
  "text-start",
  "text-end",
  "text-delta",
  "reasoning-start",
  "reasoning-end",
  "reasoning-delta",
  "tool-input-start",
  "tool-input-end",
  "tool-input-delta",
  "tool-approval-request",
  "tool-call",
  "tool-result",
]);

/**
 * One model call straight on the provider's `doStream`, with the options `streamText` would
 * build (see model-call.ts) but none of its per-part stream stages: each delta goes from the
 * provider's stream to the sink. What the engine relies on is as with `streamText`: HTTP
 * errors are thrown as the provider's APICallError (no SDK retries: the engine retries and
 * tells clients), an `error` part is thrown, a dropped stream throws from the read, a stream
 * that ends with no output and no finish throws NoOutputGeneratedError, and once the signal
 * is aborted the step ends with `aborted` whatever the stream does.
 */
export async function runModelStep(request: StepRequest, sink: StepSink): Promise<StepResult> {
  const step: StepResult = { usage: { inputTokens: null, outputTokens: 0 }, providerMetadata: undefined, toolCalls: 0, aborted: false };
  const signal = request.signal;
  const options = await modelCallOptions(request);
  let result: LanguageModelV3StreamResult;
  try {
    result = await request.model.doStream(options);
  } catch (error) {
    if (signal.aborted) return { ...step, aborted: true };
    throw error;
  }
  const state: PartState = {
    step,
    toolNames: new Set(options.tools?.map((tool) => tool.name)),
    finished: false,
    output: false,
    reasoningOpen: false,
    textOpen: false,
    openParts: { text: new Set<string>(), reasoning: new Set<string>() },
  };
  if (isPushable(result)) return pushedStep(result, state, sink, signal);
  const reader = result.stream.getReader();
  let ended = false;
  try {
    for (;;) {
      let next: ReadableStreamReadResult<LanguageModelV3StreamPart>;
      try {
        next = await reader.read();
      } catch (error) {
        if (signal.aborted) {
          step.aborted = true;
          return step;
        }
        throw error;
      }
      if (next.done) {
        ended = true;
        break;
      }
      if (signal.aborted) {
        step.aborted = true;
        return step;
      }
      // Deltas are handled synchronously: only starts, ends and tool calls wait on the sink.
      const pending = handlePart(state, next.value, sink);
      if (pending) await pending;
    }
  } finally {
    // Leaving early (an error, an abort, a sink that threw) lets the provider's request go.
    if (!ended) reader.cancel().catch(() => {});
  }
  return endedStep(state);
}

/**
 * The same step on parts the provider pushes (lib/models/pushed-parts.ts): each is handled in
 * the callback that parsed it, with no read, queue or promise per delta, and with the same
 * outcomes as reading the stream: an error part, a sink that throws or a dropped body fail the
 * step, an aborted signal ends it `aborted`, and leaving early lets the request go.
 */
function pushedStep(result: PushableStreamResult, state: PartState, sink: StepSink, signal: AbortSignal): Promise<StepResult> {
  return new Promise<StepResult>((resolve, reject) => {
    let over = false;
    let stop: (() => void) | null = null;
    let stopAsked = false;
    const leave = (outcome: () => void) => {
      if (over) return;
      over = true;
      if (stop) stop();
      else stopAsked = true;
      outcome();
    };
    const aborted = () =>
      leave(() => {
        state.step.aborted = true;
        resolve(state.step);
      });
    const failed = (error: unknown) => leave(() => reject(error));
    stop = result.pushParts({
      part(part) {
        if (over) return;
        if (signal.aborted) return aborted();
        let pending: Promise<void> | void;
        try {
          pending = handlePart(state, part, sink);
        } catch (error) {
          return failed(error);
        }
        if (pending) return pending.then(undefined, failed);
      },
      end() {
        if (over) return;
        over = true;
        try {
          resolve(endedStep(state));
        } catch (error) {
          reject(error);
        }
      },
      fail(error) {
        if (signal.aborted) return aborted();
        failed(error);
      },
    });
    if (stopAsked) stop();
  });
}

/** A stream that ended: the step, or NoOutputGeneratedError when it had no output and no finish. */
function endedStep(state: PartState): StepResult {
  if (!state.finished && !state.output) {
    throw new (aiSdk().NoOutputGeneratedError)({ message: "No output generated. The model stream ended without a finish chunk." });
  }
  return state.step;
}

/** What one step has seen of its stream so far. */
interface PartState {
  step: StepResult;
  toolNames: ReadonlySet<string>;
  finished: boolean;
  output: boolean;
  reasoningOpen: boolean;
  textOpen: boolean;
  /** Text and reasoning parts started and not yet ended, by id. */
  openParts: Record<"text" | "reasoning", Set<string>>;
}

/** One stream part into the sink; a promise only when the sink's answer must be awaited. */
function handlePart(state: PartState, part: LanguageModelV3StreamPart, sink: StepSink): Promise<void> | void {
  if (OUTPUT_PARTS.has(part.type)) state.output = true;
  switch (part.type) {
    case "reasoning-start":
      state.openParts.reasoning.add(part.id);
      state.reasoningOpen = true;
      return sink.reasoningStart(part.providerMetadata as ProviderMetadata);
    case "reasoning-delta": {
      const opening = state.reasoningOpen ? undefined : sink.reasoningStart(part.providerMetadata as ProviderMetadata);
      state.reasoningOpen = true;
      return afterOpening(opening, () => {
        sink.reasoningDelta(part.delta);
        expectOpen(state.openParts, "reasoning", part.id);
      });
    }
    case "reasoning-end": {
      const closing = state.reasoningOpen ? sink.reasoningEnd(part.providerMetadata as ProviderMetadata) : undefined;
      state.reasoningOpen = false;
      return afterOpening(closing, () => {
        expectOpen(state.openParts, "reasoning", part.id);
        state.openParts.reasoning.delete(part.id);
      });
    }
    case "text-start":
      state.openParts.text.add(part.id);
      state.textOpen = true;
      return sink.textStart();
    case "text-delta": {
      // The SDK drops empty deltas that carry nothing else.
      if (part.delta.length === 0 && part.providerMetadata == null) return;
      const opening = state.textOpen ? undefined : sink.textStart();
      state.textOpen = true;
      return afterOpening(opening, () => {
        sink.textDelta(part.delta);
        expectOpen(state.openParts, "text", part.id);
      });
    }
    case "text-end": {
      const closing = state.textOpen ? sink.textEnd() : undefined;
      state.textOpen = false;
      return afterOpening(closing, () => {
        expectOpen(state.openParts, "text", part.id);
        state.openParts.text.delete(part.id);
      });
    }
    case "tool-call": {
      state.step.toolCalls += 1;
      const known = state.toolNames.has(part.toolName) || (part.providerExecuted === true && part.dynamic === true);
      return sink.toolCall({ toolCallId: part.toolCallId, toolName: part.toolName, input: toolCallInput(part.input, known) });
    }
    case "finish":
      state.finished = true;
      state.step.usage = { inputTokens: part.usage.inputTokens.total ?? null, outputTokens: part.usage.outputTokens.total ?? 0 };
      state.step.providerMetadata = part.providerMetadata as ProviderMetadata;
      return;
    case "error":
      throw part.error;
  }
}

/** Runs `then` after the sink's `opening` settles, or at once when there is none. */
function afterOpening(opening: Promise<void> | undefined, then: () => void): Promise<void> | void {
  if (!opening) return then();
  return opening.then(then);
}

/** A delta or end for a part that was never started fails the step after the sink saw it, as with the SDK and in its words. */
function expectOpen(openParts: Record<"text" | "reasoning", Set<string>>, kind: "text" | "reasoning", id: string): void {
  if (!openParts[kind].has(id)) throw new Error(`${kind} part ${id} not found`);
}
