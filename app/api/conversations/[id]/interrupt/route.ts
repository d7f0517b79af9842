import { readJson } from "@/lib/api/request";
import { json } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";
import { interruptBody } from "@/lib/api/schemas";

export const dynamic = "force-dynamic";

export const POST = apiRoute<{ id: string }>(async ({ request, params, runtime }) => {
  const body = await readJson(request, interruptBody);
  return json({ turn: await runtime.interrupt(params.id, body.session) }, 202);
});
