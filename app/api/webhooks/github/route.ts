import { readGithubWebhook } from "@/lib/api/github-webhook";
import { quietRejectionsOf } from "@/lib/api/quiet-rejections";
import { errorResponse, json } from "@/lib/api/respond";
import { getCluster } from "@/lib/cluster/cluster-registry";
import { isNodeWebhook, readNodeWebhook, wakeOnHolder } from "@/lib/cluster/webhook-forward";
import { getRuntime } from "@/lib/engine/runtime-registry";
import { isAtriumError } from "@/lib/errors";

export const dynamic = "force-dynamic";

/**
 * Authenticated by its HMAC signature, not by the access token (DESIGN §10). On a cluster node
 * (§10c) the objectives other nodes hold are woken there, and a call carrying a node's headers is
 * the event another node verified, for one conversation held here: checked by its cluster signature.
 */
export async function POST(request: Request): Promise<Response> {
  const runtime = getRuntime();
  const cluster = getCluster();
  try {
    if (cluster && isNodeWebhook(request)) {
      const forwarded = await readNodeWebhook(request, cluster);
      return json({ matched: await runtime.deliverGithubEvent(forwarded.event, { only: forwarded.conversationId }) }, 202);
    }
    const event = await readGithubWebhook(request, runtime.config.webhooks.github?.secret);
    const elsewhere = cluster ? (conversationId: string, holder: { nodeId: string; url: string | null }) => wakeOnHolder(cluster, holder, conversationId, event, runtime.context.log) : undefined;
    const matched = await runtime.deliverGithubEvent(event, { elsewhere });
    return json({ matched }, 202);
  } catch (error) {
    if (isAtriumError(error) && error.code === "unauthorized") {
      quietRejectionsOf(runtime).count("webhook_signature");
    }
    return errorResponse(error);
  }
}
