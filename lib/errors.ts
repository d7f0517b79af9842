/** Error codes of the HTTP contract (DESIGN §8). Status mapping lives in lib/api/respond.ts. */
export type ErrorCode =
  | "bad_request"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "turn_running"
  | "not_idle"
  | "idempotency_conflict"
  | "lock_held"
  | "protected"
  | "payload_too_large"
  | "unsupported_media_type"
  | "missing_cwd"
  | "missing_model"
  | "missing_agent"
  | "compaction_failed"
  | "files_changed_outside";

const ATRIUM_ERROR = Symbol.for("atrium.error");

export class AtriumError extends Error {
  readonly code: ErrorCode;
  readonly [ATRIUM_ERROR] = true;
  /** Extra fields of the error body, e.g. the files of files_changed_outside. */
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super(message, options);
    this.name = "AtriumError";
    this.code = code;
    this.details = options?.details;
  }
}

/**
 * `instanceof` is not enough: Next bundles route code separately from server.ts, so an
 * error thrown by the Runtime comes from another copy of this class.
 */
export function isAtriumError(error: unknown): error is AtriumError {
  return typeof error === "object" && error !== null && (error as Record<symbol, unknown>)[ATRIUM_ERROR] === true;
}

export function notFound(what: string, id: string): AtriumError {
  return new AtriumError("not_found", `${what} ${id} was not found`);
}

export function badRequest(message: string): AtriumError {
  return new AtriumError("bad_request", message);
}
