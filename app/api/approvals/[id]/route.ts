import { decideAndRemember } from "@/lib/api/approval-decision";
import { readJson } from "@/lib/api/request";
import { json } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";
import { decisionBody } from "@/lib/api/schemas";

export const dynamic = "force-dynamic";

export const POST = apiRoute<{ id: string }>(async ({ request, params, runtime }) => {
  const body = await readJson(request, decisionBody);
  if (body.remember && body.decision === "approve") return json(await decideAndRemember(runtime, params.id, body.remember, body.requestKey));
  return json({ approval: await runtime.decideApproval(params.id, body.decision, body.requestKey) });
});
