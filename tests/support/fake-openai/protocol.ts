import type { FakeContentStep } from "./fake-step";
import type { ResolvedUsage } from "./usage";

/** One server-sent event; `textDelta` marks the events a drop or hang counts. */
export interface StreamEvent {
  name?: string;
  payload: unknown;
  textDelta: boolean;
}

export const DONE_PAYLOAD = "[DONE]";

export interface GenerationRequest {
  model: string;
  stream: boolean;
  /** Size of the prompt part of the body (messages or input), for usage estimates. */
  promptCharacters: number;
}

export interface AnswerContext {
  usage: ResolvedUsage;
  nextId: (prefix: string) => string;
  createdAt: number;
}

/** How one endpoint turns a scripted step into its wire format. */
export interface Protocol<Request extends GenerationRequest> {
  parseRequest(body: unknown): { success: true; request: Request } | { success: false; message: string };
  streamEvents(step: FakeContentStep, request: Request, context: AnswerContext): StreamEvent[];
  completeResponse(step: FakeContentStep, request: Request, context: AnswerContext): unknown;
}

export function formatStreamEvent(event: StreamEvent): string {
  const data = typeof event.payload === "string" ? event.payload : JSON.stringify(event.payload);
  return `${event.name === undefined ? "" : `event: ${event.name}\n`}data: ${data}\n\n`;
}

/**
 * The events up to and including the `textDeltas`-th text delta: what a stream that breaks
 * there has sent. Zero keeps only what precedes the first text delta.
 */
export function eventsThroughTextDelta(events: StreamEvent[], textDeltas: number): StreamEvent[] {
  const deltaIndexes = events.flatMap((event, index) => (event.textDelta ? [index] : []));
  if (deltaIndexes.length === 0) return events.slice(0, 1);
  if (textDeltas <= 0) return events.slice(0, deltaIndexes[0]);
  const lastIndex = deltaIndexes[Math.min(textDeltas, deltaIndexes.length) - 1];
  return events.slice(0, lastIndex + 1);
}
