import type { FakeErrorStep } from "./fake-step";

const DEFAULT_ERRORS: Record<number, { message: string; type: string; code: string }> = {
  400: { message: "Invalid request (fake server)", type: "invalid_request_error", code: "invalid_request" },
  401: { message: "Incorrect API key provided (fake server)", type: "invalid_request_error", code: "invalid_api_key" },
  404: { message: "The model does not exist (fake server)", type: "invalid_request_error", code: "model_not_found" },
  408: { message: "Request timed out (fake server)", type: "timeout_error", code: "timeout" },
  429: { message: "Rate limit reached (fake server)", type: "requests", code: "rate_limit_exceeded" },
  500: { message: "The server had an error (fake server)", type: "server_error", code: "server_error" },
  503: { message: "The engine is currently overloaded (fake server)", type: "server_error", code: "overloaded" },
};

/** An OpenAI-style error: `{ error: { message, type, param, code } }`. */
export function openAIErrorBody(status: number, message?: string) {
  const known = DEFAULT_ERRORS[status] ?? {
    message: `Fake error with status ${status}`,
    type: "fake_error",
    code: String(status),
  };
  return { error: { message: message ?? known.message, type: known.type, param: null, code: known.code } };
}

export function errorStepBody(step: FakeErrorStep): { contentType: string; text: string } {
  if (typeof step.body === "string") return { contentType: "text/plain; charset=utf-8", text: step.body };
  const body = step.body === undefined ? openAIErrorBody(step.status, step.message) : step.body;
  return { contentType: "application/json", text: JSON.stringify(body) };
}
