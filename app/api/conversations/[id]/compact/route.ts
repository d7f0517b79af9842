import { json } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";

export const dynamic = "force-dynamic";

export const POST = apiRoute<{ id: string }>(async ({ params, runtime }) => {
  const outcome = await runtime.compact(params.id);
  return outcome.compacted ? json(outcome, 202) : json(outcome, 200);
});
