import { AtriumError } from "../errors";

/** How long the rest of a refused body is read and dropped so the client can hear the 413. */
export const LINGER_MS = 2_000;

/**
 * Reads a request body chunk by chunk and stops at `limit` bytes: a declared length over
 * the limit is refused before reading, a chunked body as soon as it passes it. Nothing past
 * the limit is ever held in memory. Past it the rest is read and dropped for a while so the
 * client hears the 413 (`linger`), or, for a copy of a body (`Request.clone`) whose original
 * is still to be read, the copy is cancelled at once (`cancel`: draining it would hold the rest
 * for the original).
 */
export async function readBodyLimited(request: Request, limit: number, message: string, past: "linger" | "cancel" = "linger"): Promise<Uint8Array<ArrayBuffer>> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (!Number.isFinite(declared) || declared > limit) throw new AtriumError("payload_too_large", message);
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      if (past === "cancel") void reader.cancel().catch(() => undefined);
      else void drainThenCancel(reader, LINGER_MS);
      throw new AtriumError("payload_too_large", message);
    }
    chunks.push(value);
  }
  return joined(chunks, total);
}

/** All of a body the API made or has already limited (lib/api/node-request.ts, plain-answer.ts), in one array. */
export async function readWhole(body: ReadableStream<Uint8Array>): Promise<Uint8Array<ArrayBuffer>> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return joined(chunks, total);
    chunks.push(value);
    total += value.byteLength;
  }
}

function joined(chunks: Uint8Array[], total: number): Uint8Array<ArrayBuffer> {
  const body = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

/**
 * A lingering close (RFC 9112 §9.6): cancelling the body at once resets the connection while
 * the client is still sending, and a reset can erase the 413 from the client's buffers before
 * it is read. So the rest is read and dropped — never held — until the client stops or
 * `lingerMs` passes, and only then is the body cancelled.
 */
async function drainThenCancel(reader: ReadableStreamDefaultReader<Uint8Array>, lingerMs: number): Promise<void> {
  const timer = setTimeout(() => void reader.cancel().catch(() => undefined), lingerMs);
  try {
    for (;;) if ((await reader.read()).done) return;
  } catch {
    // The client went away (or the linger ran out) while the rest was dropped.
  } finally {
    clearTimeout(timer);
  }
}
