import { verify } from "@octokit/webhooks-methods";
import { AtriumError } from "../errors";
import { readBodyLimited } from "./body";

/** GitHub sends payloads up to 25 MB; Atrium only needs small events and refuses more than this. */
export const WEBHOOK_BODY_LIMIT = 5 * 1024 * 1024;

/**
 * Reads and verifies a GitHub webhook (X-Hub-Signature-256, HMAC-SHA256 compared in
 * constant time by @octokit/webhooks-methods). Throws unauthorized on a missing or wrong signature.
 */
export async function readGithubWebhook(request: Request, secret: string | undefined): Promise<{ name: string; delivery: string | null; payload: Record<string, unknown> }> {
  if (!secret) throw new AtriumError("unauthorized", "no GitHub webhook secret is configured (config.webhooks.github.secret)");
  const signature = request.headers.get("x-hub-signature-256");
  if (!signature) throw new AtriumError("unauthorized", "the X-Hub-Signature-256 header is missing");
  const text = new TextDecoder().decode(await readBodyLimited(request, WEBHOOK_BODY_LIMIT, `webhook bodies are limited to ${WEBHOOK_BODY_LIMIT} bytes`));
  let valid = false;
  try {
    valid = await verify(secret, text, signature);
  } catch {
    valid = false;
  }
  if (!valid) throw new AtriumError("unauthorized", "the webhook signature does not match");
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    throw new AtriumError("bad_request", "the webhook body is not valid JSON");
  }
  if (typeof payload !== "object" || payload === null) throw new AtriumError("bad_request", "the webhook body is not a JSON object");
  const name = request.headers.get("x-github-event") ?? "";
  if (!/^[a-z_]{1,64}$/.test(name)) throw new AtriumError("bad_request", "the X-GitHub-Event header is missing or malformed");
  return { name, delivery: request.headers.get("x-github-delivery"), payload: payload as Record<string, unknown> };
}
