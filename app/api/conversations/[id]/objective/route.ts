import { readJson } from "@/lib/api/request";
import { json } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";
import { objectiveBody, objectivePatchBody } from "@/lib/api/schemas";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ id: string }>(async ({ params, runtime }) => json({ objective: (await runtime.pages.getConversation(params.id)).objective }));

export const POST = apiRoute<{ id: string }>(async ({ request, params, runtime }) => {
  const body = await readJson(request, objectiveBody);
  return json({ objective: await runtime.openObjective(params.id, body.text, body.requestKey) }, 201);
});

export const PATCH = apiRoute<{ id: string }>(async ({ request, params, runtime }) => {
  const body = await readJson(request, objectivePatchBody);
  return json({ objective: await runtime.changeObjective(params.id, body.status, body.note, body.requestKey) });
});
