import { updateSubscriptions } from "@/lib/api/multiplexed-stream";
import { readJson } from "@/lib/api/request";
import { json } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";
import { updateSubscriptionsBody } from "@/lib/api/stream-schemas";

export const dynamic = "force-dynamic";

export const POST = apiRoute<{ streamId: string }>(async ({ request, params, runtime }) => {
  const body = await readJson(request, updateSubscriptionsBody);
  return json(updateSubscriptions(runtime, params.streamId, body));
});
