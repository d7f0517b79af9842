import { parseWith, queryParams } from "@/lib/api/request";
import { json } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";
import { approvalRulesQuery } from "@/lib/api/schemas";
import { approvalRulesOf } from "@/lib/tools/approval-rules";

export const dynamic = "force-dynamic";

/** Rules made by "Always allow in this project" (DESIGN §6, §8); ?machine= and ?path= narrow them to one project. */
export const GET = apiRoute(async ({ request, runtime }) => {
  const query = parseWith(approvalRulesQuery, queryParams(request));
  return json({ rules: await approvalRulesOf(runtime.store.paths.home).list(query), nextCursor: null });
});
