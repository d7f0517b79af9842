import type { ServerResponse } from "node:http";
import { errorStepBody } from "./error-body";
import type { FakeContentStep, FakeStep } from "./fake-step";
import {
  eventsThroughTextDelta,
  formatStreamEvent,
  type AnswerContext,
  type GenerationRequest,
  type Protocol,
  type StreamEvent,
} from "./protocol";
import { resolveUsage } from "./usage";

/** Answers one generation request as the scripted step says. Resolves when the response is over. */
export async function respondWithStep<Request extends GenerationRequest>(
  step: FakeStep,
  protocol: Protocol<Request>,
  request: Request,
  response: ServerResponse,
  context: Omit<AnswerContext, "usage">,
): Promise<void> {
  const answerContext = (content: FakeContentStep): AnswerContext => ({
    ...context,
    usage: resolveUsage(content, request.promptCharacters),
  });

  switch (step.type) {
    case "error": {
      const { contentType, text } = errorStepBody(step);
      response.writeHead(step.status, {
        "Content-Type": contentType,
        "Content-Length": Buffer.byteLength(text),
        ...(step.retryAfterSeconds === undefined ? {} : { "Retry-After": String(step.retryAfterSeconds) }),
      });
      response.end(text);
      return;
    }
    case "text":
    case "tool_call": {
      if (request.stream) {
        await writeEvents(response, protocol.streamEvents(step, request, answerContext(step)));
        response.end();
      } else {
        const text = JSON.stringify(protocol.completeResponse(step, request, answerContext(step)));
        response.writeHead(200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text) });
        response.end(text);
      }
      return;
    }
    case "drop": {
      const content: FakeContentStep = { type: "text", text: step.text };
      if (request.stream) {
        const events = protocol.streamEvents(content, request, answerContext(content));
        await writeEvents(response, eventsThroughTextDelta(events, step.afterChunks));
      } else {
        const text = JSON.stringify(protocol.completeResponse(content, request, answerContext(content)));
        response.writeHead(200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text) });
        await write(response, text.slice(0, Math.floor(text.length / 2)));
      }
      // Destroying the socket (not ending the response) is what a crashed or cut-off upstream looks like.
      response.destroy();
      return;
    }
    case "hang": {
      if (step.text !== undefined && request.stream) {
        const content: FakeContentStep = { type: "text", text: step.text };
        const events = protocol.streamEvents(content, request, answerContext(content));
        await writeEvents(response, eventsThroughTextDelta(events, step.afterChunks ?? Number.MAX_SAFE_INTEGER));
      }
      await new Promise<void>((resolve) => response.once("close", resolve));
      return;
    }
  }
}

async function writeEvents(response: ServerResponse, events: StreamEvent[]): Promise<void> {
  response.writeHead(200, {
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-cache",
    Connection: "keep-alive",
  });
  response.flushHeaders();
  for (const event of events) await write(response, formatStreamEvent(event));
}

/**
 * Resolves once the chunk is handed to the socket, so a following destroy cannot discard it,
 * or once the client has gone away (an aborting client is an expected end, not a failure).
 */
function write(response: ServerResponse, chunk: string): Promise<void> {
  if (response.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const onClose = () => resolve();
    response.once("close", onClose);
    response.write(chunk, () => {
      response.off("close", onClose);
      resolve();
    });
  });
}
