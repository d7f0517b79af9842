import { readJson } from "@/lib/api/request";
import { json, noContent } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";
import { updateWaitingBody } from "@/lib/api/schemas";

export const dynamic = "force-dynamic";

export const PATCH = apiRoute<{ id: string; msgId: string }>(async ({ request, params, runtime }) => {
  const { requestKey: _requestKey, ...patch } = await readJson(request, updateWaitingBody);
  return json({ message: await runtime.updateWaiting(params.id, params.msgId, patch) });
});

export const DELETE = apiRoute<{ id: string; msgId: string }>(async ({ params, runtime }) => {
  await runtime.withdrawWaiting(params.id, params.msgId);
  return noContent();
});
