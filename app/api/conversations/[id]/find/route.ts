import { parseWith, queryParams } from "@/lib/api/request";
import { json } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";
import { findItemsQuery } from "@/lib/api/schemas";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ id: string }>(({ request, params, runtime }) => {
  const query = parseWith(findItemsQuery, queryParams(request));
  return json(runtime.findItems(params.id, query));
});
