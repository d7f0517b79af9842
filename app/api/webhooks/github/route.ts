import { readGithubWebhook } from "@/lib/api/github-webhook";
import { quietRejectionsOf } from "@/lib/api/quiet-rejections";
import { errorResponse, json } from "@/lib/api/respond";
import { getRuntime } from "@/lib/engine/runtime-registry";
import { isAtriumError } from "@/lib/errors";

export const dynamic = "force-dynamic";

/** Authenticated by its HMAC signature, not by the access token (DESIGN §10). */
export async function POST(request: Request): Promise<Response> {
  const runtime = getRuntime();
  try {
    const event = await readGithubWebhook(request, runtime.config.webhooks.github?.secret);
    const matched = await runtime.deliverGithubEvent(event);
    return json({ matched }, 202);
  } catch (error) {
    if (isAtriumError(error) && error.code === "unauthorized") {
      quietRejectionsOf(runtime).count("webhook_signature");
    }
    return errorResponse(error);
  }
}
