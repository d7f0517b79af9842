import { readJson } from "@/lib/api/request";
import { json } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";
import { revertFileBody } from "@/lib/api/schemas";
import { assertId } from "@/lib/store/ids";

export const dynamic = "force-dynamic";

export const POST = apiRoute<{ turnId: string }>(async ({ request, params, runtime }) => {
  const body = await readJson(request, revertFileBody);
  return json(await runtime.revertFile(assertId(params.turnId, "turn id"), body.path, body.force ?? false));
});
