import { readJson } from "@/lib/api/request";
import { json } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";
import { forkBody } from "@/lib/api/schemas";

export const dynamic = "force-dynamic";

export const POST = apiRoute<{ id: string }>(async ({ request, params, runtime }) => {
  const body = await readJson(request, forkBody);
  return json({ conversation: await runtime.fork(params.id, body) }, 201);
});
