import { AtriumError } from "../errors";

/**
 * Reads a request body chunk by chunk and stops at `limit` bytes: a declared length over
 * the limit is refused before reading, a chunked body as soon as it passes it. Nothing past
 * the limit is ever held in memory.
 */
export async function readBodyLimited(request: Request, limit: number, message: string): Promise<Uint8Array<ArrayBuffer>> {
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
      await reader.cancel().catch(() => undefined);
      throw new AtriumError("payload_too_large", message);
    }
    chunks.push(value);
  }
  const body = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}
