/** Error codes of the HTTP contract (DESIGN §8). Status mapping lives in lib/api/respond.ts. */
export type ErrorCode =
  | "bad_request"
  | "unauthorized"
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
  | "missing_agent";

export class AtriumError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "AtriumError";
    this.code = code;
  }
}

export function notFound(what: string, id: string): AtriumError {
  return new AtriumError("not_found", `${what} ${id} was not found`);
}

export function badRequest(message: string): AtriumError {
  return new AtriumError("bad_request", message);
}
