/** Token counts a step reports; `completionTokens` includes the reasoning tokens, as OpenAI counts them. */
export interface FakeUsage {
  promptTokens: number;
  completionTokens: number;
  reasoningTokens?: number;
  cachedTokens?: number;
}

export interface FakeTextStep {
  type: "text";
  text: string;
  /** Split the text into this many deltas; by default one delta per word. */
  chunks?: number;
  usage?: FakeUsage;
  /** Streamed before the text (`reasoning_content` deltas, or a Responses reasoning summary). */
  reasoning?: string;
  /** Responses API only: the reasoning context the fake provider claims to have applied. */
  reasoningContext?: "all_turns" | "current_turn";
}

export interface FakeToolCallStep {
  type: "tool_call";
  name: string;
  /** A string is sent verbatim (to script malformed JSON); anything else is JSON-encoded. */
  arguments: unknown;
  id?: string;
  usage?: FakeUsage;
}

export interface FakeErrorStep {
  type: "error";
  status: number;
  /** Replaces the OpenAI error JSON; a string is sent as a plain-text body. */
  body?: unknown;
  /** Message inside the default OpenAI error JSON. */
  message?: string;
  retryAfterSeconds?: number;
}

/** Starts a 200 stream, sends everything up to the `afterChunks`-th text delta, then destroys the socket. */
export interface FakeDropStep {
  type: "drop";
  text: string;
  afterChunks: number;
}

/**
 * Holds the response open until the client aborts. Without `text` no headers are sent;
 * with `text` the stream starts and stops after `afterChunks` text deltas (default: all of them).
 */
export interface FakeHangStep {
  type: "hang";
  text?: string;
  afterChunks?: number;
}

export type FakeStep = FakeTextStep | FakeToolCallStep | FakeErrorStep | FakeDropStep | FakeHangStep;

/** The steps that produce a complete model answer. */
export type FakeContentStep = FakeTextStep | FakeToolCallStep;

export interface RecordedRequest {
  method: string;
  path: string;
  // Tests inspect whatever shape the SDK sent (messages, input items, tools), so the body stays untyped.
  body: any;
  headers: Record<string, string>;
}
