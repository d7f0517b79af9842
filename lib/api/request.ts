import { z } from "zod";
import { AtriumError } from "../errors";
import { readBodyLimited } from "./body";
import { describeZodError } from "./respond";

export const JSON_BODY_LIMIT = 1024 * 1024;

/**
 * Reads a JSON body (1 MiB at most, cut while reading) and validates it; an empty body counts
 * as {}. A body sent as anything but application/json is refused: text/plain and form posts
 * are what another web page can send without asking (DESIGN §10).
 */
export async function readJson<Schema extends z.ZodType>(request: Request, schema: Schema): Promise<z.infer<Schema>> {
  if (hasBody(request) && !isJsonContentType(request.headers.get("content-type"))) {
    throw new AtriumError("unsupported_media_type", "send the body as JSON with content-type: application/json");
  }
  const body = await readBodyLimited(request, JSON_BODY_LIMIT, `JSON bodies are limited to ${JSON_BODY_LIMIT} bytes`);
  const text = new TextDecoder().decode(body);
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

export function isJsonContentType(header: string | null): boolean {
  return header !== null && /^application\/json\s*(;|$)/i.test(header.trim());
}

function hasBody(request: Request): boolean {
  const length = request.headers.get("content-length");
  if (length !== null) return length.trim() !== "0";
  // HTTP/1.1 carries a body only with one of these two headers.
  return request.headers.has("transfer-encoding");
}

export function parseWith<Schema extends z.ZodType>(schema: Schema, value: unknown): z.infer<Schema> {
  const result = schema.safeParse(value);
  if (!result.success) throw new AtriumError("bad_request", describeZodError(result.error));
  return result.data;
}

/** Query parameters for a schema: a name given twice is refused rather than silently picking one. */
export function queryParams(request: Request): Record<string, string> {
  // A Map, so names like __proto__ stay plain keys that the strict schemas then refuse.
  const params = new Map<string, string>();
  for (const [name, value] of new URL(request.url).searchParams.entries()) {
    if (params.has(name)) throw new AtriumError("bad_request", `query parameter ${name} is given more than once`);
    params.set(name, value);
  }
  return Object.fromEntries(params);
}
