import type { LanguageModelV3StreamPart, LanguageModelV3StreamResult } from "@ai-sdk/provider";

/**
 * Where a model response's parts go when they are pushed instead of read from its web stream:
 * in order, one call each, in the callback that parsed them. A `part` that answers a promise
 * holds the parts after it until the promise settles. After `end` or `fail` nothing more comes.
 * The sink handles its own errors: a promise it answers does not reject.
 */
export interface PartSink {
  part(part: LanguageModelV3StreamPart): void | Promise<void>;
  end(): void;
  fail(error: unknown): void;
}

/**
 * A stream result whose parts can also be pushed to a sink: one reader only, `stream` or
 * `pushParts`, whichever is asked first. A web stream costs a read, a queue and promises per
 * part; the engine takes the parts pushed when a provider offers them (lib/engine/model-step.ts).
 */
export interface PushableStreamResult extends LanguageModelV3StreamResult {
  /** Starts sending the parts to `sink`; the answer lets the response go, as cancelling the stream would. */
  pushParts(sink: PartSink): () => void;
}

export function isPushable(result: LanguageModelV3StreamResult): result is PushableStreamResult {
  return typeof (result as Partial<PushableStreamResult>).pushParts === "function";
}
