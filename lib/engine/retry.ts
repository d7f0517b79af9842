import { APICallError } from "@ai-sdk/provider";
import type { AtriumConfig } from "../config/config";

export interface ClassifiedError {
  retryable: boolean;
  code: string;
  message: string;
  retryAfterMs: number | null;
}

const TEMPORARY_STATUS = new Set([408, 409, 425, 429, 500, 502, 503, 504, 529]);
const TEMPORARY_NETWORK_CODES = new Set(["ECONNRESET", "ECONNREFUSED", "EPIPE", "ETIMEDOUT", "UND_ERR_SOCKET", "EAI_AGAIN"]);

/**
 * Temporary: connection problems, dropped streams, 408, 429, 5xx, overload. A dropped
 * stream surfaces from the AI SDK as an APICallError with status 200 and isRetryable,
 * so the SDK's own judgement counts as well as the status.
 */
export function classifyModelError(error: unknown): ClassifiedError {
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    const retryable = (status !== undefined && TEMPORARY_STATUS.has(status)) || (status === 200 && error.isRetryable) || (status === undefined && error.isRetryable);
    return {
      retryable,
      code: "provider_error",
      message: status && status !== 200 ? `${status}: ${error.message}` : error.message,
      retryAfterMs: parseRetryAfter(error.responseHeaders),
    };
  }
  const networkCode = findNetworkCode(error);
  const message = error instanceof Error ? error.message : String(error);
  if (networkCode || /terminated|socket hang up|fetch failed|network/i.test(message)) {
    return { retryable: true, code: "provider_error", message, retryAfterMs: null };
  }
  return { retryable: false, code: "provider_error", message, retryAfterMs: null };
}

function findNetworkCode(error: unknown): string | null {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && TEMPORARY_NETWORK_CODES.has(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return null;
}

function parseRetryAfter(headers: Record<string, string> | undefined): number | null {
  if (!headers) return null;
  const milliseconds = headers["retry-after-ms"];
  if (milliseconds !== undefined && Number.isFinite(Number(milliseconds))) return Math.max(0, Number(milliseconds));
  const value = headers["retry-after"];
  if (value === undefined) return null;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.max(0, Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

/** A provider's Retry-After is honoured up to this, so a bad header cannot park a turn for hours (DESIGN §10). */
export const RETRY_AFTER_CEILING_MS = 5 * 60 * 1000;

/** 1, 2, 4, 8, 16, 30, 30 … s with the defaults; Retry-After, when given, decides instead, within its cap. */
export function retryDelay(attempt: number, retry: AtriumConfig["retry"], retryAfterMs: number | null): number {
  if (retryAfterMs !== null) return Math.round(Math.min(retryAfterMs, retry.maxDelayMs * 10, RETRY_AFTER_CEILING_MS));
  return Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (attempt - 1));
}

export function abortableSleep(milliseconds: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, milliseconds);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
