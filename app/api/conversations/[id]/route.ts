import { readJson } from "@/lib/api/request";
import { json, noContent } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";
import { updateConversationBody } from "@/lib/api/schemas";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ id: string }>(async ({ params, runtime }) => json({ conversation: await runtime.pages.getConversation(params.id) }));

export const PATCH = apiRoute<{ id: string }>(async ({ request, params, runtime }) => {
  const { requestKey: _requestKey, ...patch } = await readJson(request, updateConversationBody);
  return json({ conversation: await runtime.updateConversation(params.id, patch) });
});

export const DELETE = apiRoute<{ id: string }>(async ({ params, runtime }) => {
  await runtime.deleteConversation(params.id);
  return noContent();
});
