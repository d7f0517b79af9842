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
  | "files_changed_outside"
  | "queue_full"
  | "too_many_streams"
  | "storage_error"
  | "storage_full";

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

const FULL_DISK_CODES = new Set(["ENOSPC", "EDQUOT"]);

/**
 * A failed write or flush as the contract names it (DESIGN §2): `storage_full` for a full disk
 * or quota, `storage_error` for any other I/O failure. Typed errors pass through unchanged.
 */
export function storageError(error: unknown, what: string): AtriumError {
  if (isAtriumError(error)) return error;
  const code = (error as NodeJS.ErrnoException | null)?.code ?? "";
  const reason = error instanceof Error ? error.message : String(error);
  if (FULL_DISK_CODES.has(code)) return new AtriumError("storage_full", `the disk is full: ${what} could not be written (${reason})`, { cause: error });
  return new AtriumError("storage_error", `a storage error kept ${what} from being written (${reason})`, { cause: error });
}

export function isStorageError(error: unknown): error is AtriumError {
  return isAtriumError(error) && (error.code === "storage_full" || error.code === "storage_error");
}
