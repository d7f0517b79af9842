import { z } from "zod";
import { isAtriumError, type ErrorCode } from "../errors";
import { PlainAnswer } from "./plain-answer";

const STATUS: Record<ErrorCode, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  turn_running: 409,
  not_idle: 409,
  idempotency_conflict: 409,
  lock_held: 409,
  protected: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  missing_cwd: 422,
  cwd_outside_roots: 400,
  machine_offline: 409,
  missing_model: 422,
  missing_agent: 422,
  compaction_failed: 502,
  files_changed_outside: 409,
  snapshots_elsewhere: 409,
  queue_full: 429,
  too_many_streams: 429,
  storage_error: 503,
  storage_full: 507,
  node_unavailable: 503,
};

/** Answers are PlainAnswers (lib/api/plain-answer.ts): writing one needs none of undici. */
export function json(body: object, status = 200, headers: Record<string, string> = {}): Response {
  return new PlainAnswer(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers },
  });
}

export function noContent(): Response {
  return new PlainAnswer(null, { status: 204 });
}

/** The one place errors become HTTP answers: typed errors keep their code, anything else is a 500. */
export function errorResponse(error: unknown): Response {
  if (isAtriumError(error)) {
    return json({ error: { ...error.details, code: error.code, message: error.message } }, STATUS[error.code]);
  }
  if (isZodError(error)) {
    return json({ error: { code: "bad_request", message: describeZodError(error) } }, 400);
  }
  console.error("unexpected error in request", error);
  return json({ error: { code: "internal_error", message: "Something went wrong inside Atrium; see the server log." } }, 500);
}

/** By shape, not instanceof: a ZodError thrown by server.ts's copy of zod is another class than this bundle's. */
function isZodError(error: unknown): error is z.ZodError {
  return error instanceof z.ZodError || (error instanceof Error && error.name === "ZodError" && Array.isArray((error as { issues?: unknown }).issues));
}

export function describeZodError(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length ? issue.path.join(".") : "body"}: ${issue.message}`)
    .join("; ");
}
