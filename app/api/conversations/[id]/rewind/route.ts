import { parseWith, queryParams, readJson } from "@/lib/api/request";
import { json } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";
import { rewindBody, rewindPreviewQuery } from "@/lib/api/schemas";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ id: string }>(async ({ request, params, runtime }) => {
  const query = parseWith(rewindPreviewQuery, queryParams(request));
  return json({ files: await runtime.filesChangedSince(params.id, query.itemId) });
});

export const POST = apiRoute<{ id: string }>(async ({ request, params, runtime }) => {
  const body = await readJson(request, rewindBody);
  const { itemId, ...options } = body;
  return json(await runtime.rewind(params.id, itemId, options), 201);
});
