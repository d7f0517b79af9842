import { parseWith, queryParams } from "@/lib/api/request";
import { json } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";
import { turnChangesQuery } from "@/lib/api/schemas";
import { assertId } from "@/lib/store/ids";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ turnId: string }>(async ({ request, params, runtime }) => {
  const query = parseWith(turnChangesQuery, queryParams(request));
  return json(await runtime.turnChanges(assertId(params.turnId, "turn id"), query.item, query.context));
});
