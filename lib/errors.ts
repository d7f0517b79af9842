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
  | "cwd_outside_roots"
  | "machine_offline"
  | "missing_model"
  | "missing_agent"
  | "compaction_failed"
  | "files_changed_outside"
  | "snapshots_elsewhere"
  | "queue_full"
  | "too_many_streams"
  | "storage_error"
  | "storage_full"
  /** DESIGN §10c: the node holding the conversation cannot be reached, or this node lost its lease mid-command. */
  | "node_unavailable";

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

const FULL_DISK_CODES = new Set(["ENOSPC", "EDQUOT", "SQLITE_FULL"]);
/** SQLite's own words for a disk that fails or refuses the index (extended codes such as SQLITE_IOERR_WRITE included). */
const SQLITE_DISK_CODES = /^SQLITE_(FULL|IOERR|READONLY|CANTOPEN|CORRUPT|NOTADB)/;

/**
 * A failed write or flush as the contract names it (DESIGN §2): `storage_full` for a full disk
 * or quota, `storage_error` for any other I/O failure. Typed errors pass through unchanged.
 */
export function storageError(error: unknown, what: string): AtriumError {
  if (isAtriumError(error)) return error;
  const code = errorCode(error);
  const reason = error instanceof Error ? error.message : String(error);
  if (FULL_DISK_CODES.has(code)) return new AtriumError("storage_full", `the disk is full: ${what} could not be written (${reason})`, { cause: error });
  return new AtriumError("storage_error", `a storage error kept ${what} from being written (${reason})`, { cause: error });
}

/**
 * An index write (SQLite) that failed because of the disk, as the contract names it: SQLITE_FULL
 * is `storage_full`, an I/O, read-only, open or corruption error `storage_error`. Null for
 * anything else (a constraint, a bug), which stays an internal error. The record itself is
 * already in the conversation's files, and the message says so.
 */
export function indexStorageError(error: unknown, what: string): AtriumError | null {
  if (!isIndexDiskFault(error)) return null;
  const code = errorCode(error);
  const reason = error instanceof Error ? error.message : String(error);
  const saved = "the record is saved in the conversation's files and the index catches up from them";
  if (code === "SQLITE_FULL") {
    return new AtriumError("storage_full", `the disk is full: the index of ${what} could not be updated (${code}: ${reason}); ${saved} once there is space`, { cause: error });
  }
  return new AtriumError("storage_error", `a storage error kept the index of ${what} from being updated (${code}: ${reason}); ${saved}`, { cause: error });
}

/** Whether an SQLite error is the disk's doing (full, I/O, read-only, unopenable, corrupt) rather than a bug. */
export function isIndexDiskFault(error: unknown): boolean {
  return SQLITE_DISK_CODES.test(errorCode(error));
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : "";
}

/** Rethrows a failure to read or write stored data as a storage error (an AtriumError stays as it is). */
export function asStorageError(error: unknown): never {
  if (isAtriumError(error)) throw error;
  throw new AtriumError("storage_error", `stored data could not be read: ${error instanceof Error ? error.message : String(error)}`);
}

export function isStorageError(error: unknown): error is AtriumError {
  return isAtriumError(error) && (error.code === "storage_full" || error.code === "storage_error");
}
