import { updateSubscriptions } from "@/lib/api/multiplexed-stream";
import { readJson } from "@/lib/api/request";
import { json } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";
import { updateSubscriptionsBody } from "@/lib/api/stream-schemas";
import { remoteSubscriptions } from "@/lib/cluster/remote-subscription";

export const dynamic = "force-dynamic";

export const POST = apiRoute<{ streamId: string }>(async ({ request, params, runtime }) => {
  const body = await readJson(request, updateSubscriptionsBody);
  // DESIGN §10c: conversations another node holds are followed from it.
  const remote = await remoteSubscriptions(runtime, body.add);
  return json(updateSubscriptions(runtime, params.streamId, body, remote));
});
