import { z } from "zod";
import { AtriumError } from "../errors";
import { describeZodError } from "./respond";

export const JSON_BODY_LIMIT = 1024 * 1024;

/** Reads a JSON body (1 MiB at most) and validates it; an empty body counts as {}. */
export async function readJson<Schema extends z.ZodType>(request: Request, schema: Schema): Promise<z.infer<Schema>> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > JSON_BODY_LIMIT) throw tooLarge();
  const text = await readLimited(request);
  let value: unknown = {};
  if (text.trim() !== "") {
    try {
      value = JSON.parse(text);
    } catch {
      throw new AtriumError("bad_request", "the request body is not valid JSON");
    }
  }
  return parseWith(schema, value);
}

export function parseWith<Schema extends z.ZodType>(schema: Schema, value: unknown): z.infer<Schema> {
  const result = schema.safeParse(value);
  if (!result.success) throw new AtriumError("bad_request", describeZodError(result.error));
  return result.data;
}

async function readLimited(request: Request): Promise<string> {
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > JSON_BODY_LIMIT) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function tooLarge(): AtriumError {
  return new AtriumError("payload_too_large", `JSON bodies are limited to ${JSON_BODY_LIMIT} bytes`);
}

export function queryParams(request: Request): Record<string, string> {
  return Object.fromEntries(new URL(request.url).searchParams.entries());
}
