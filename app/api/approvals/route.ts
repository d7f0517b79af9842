import { parseWith, queryParams } from "@/lib/api/request";
import { json } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";
import { approvalsQuery } from "@/lib/api/schemas";

export const dynamic = "force-dynamic";

export const GET = apiRoute(async ({ request, runtime }) => {
  const query = parseWith(approvalsQuery, queryParams(request));
  return json({ approvals: await runtime.listApprovals(query.status), nextCursor: null });
});
