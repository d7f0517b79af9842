import { parseWith, queryParams } from "@/lib/api/request";
import { json } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";
import { listItemsQuery } from "@/lib/api/schemas";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ id: string }>(async ({ request, params, runtime }) => {
  const query = parseWith(listItemsQuery, queryParams(request));
  return json(await runtime.pages.listItems(params.id, query));
});
