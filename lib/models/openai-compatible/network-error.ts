import { APICallError } from "@ai-sdk/provider";

/**
 * What the AI SDK makes of an error while reading a successful response's body
 * (provider-utils' wrapResponseBodyStream + handleFetchError, same codes, same fields): an
 * abort passes as it is; anything else becomes "Failed to process successful response",
 * retryable when a network error code is in its causes (a dropped connection).
 */
const RETRYABLE_NETWORK_ERROR_CODES = new Set([
  "ConnectionRefused",
  "ConnectionClosed",
  "FailedToOpenSocket",
  "ECONNRESET",
  "ECONNREFUSED",
  "ETIMEDOUT",
  "EPIPE",
  "UND_ERR_SOCKET",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_CONNECT_TIMEOUT",
]);

export function isAbortError(error: unknown): boolean {
  return (error instanceof Error || error instanceof DOMException) && (error.name === "AbortError" || error.name === "ResponseAborted" || error.name === "TimeoutError");
}

function hasNetworkCode(error: unknown): boolean {
  const visited = new Set<unknown>();
  let current = error;
  while (current instanceof Error && !visited.has(current)) {
    visited.add(current);
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && RETRYABLE_NETWORK_ERROR_CODES.has(code)) return true;
    current = current.cause;
  }
  return false;
}

export interface ResponseContext {
  url: string;
  requestBodyValues: unknown;
  statusCode: number;
  responseHeaders: Record<string, string>;
}

export function bodyReadError(error: unknown, context: ResponseContext): unknown {
  if (isAbortError(error)) return error;
  const fields = { message: "Failed to process successful response", cause: error, ...context };
  return new APICallError(hasNetworkCode(error) ? { ...fields, isRetryable: true } : fields);
}
