import { readJson } from "@/lib/api/request";
import { json } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";
import { rewindBody } from "@/lib/api/schemas";

export const dynamic = "force-dynamic";

export const POST = apiRoute<{ id: string }>(async ({ request, params, runtime }) => {
  const body = await readJson(request, rewindBody);
  return json(await runtime.rewind(params.id, body.itemId, body.requestKey), 201);
});
