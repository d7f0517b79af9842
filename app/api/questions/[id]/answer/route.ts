import { readJson } from "@/lib/api/request";
import { json } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";
import { answerBody } from "@/lib/api/schemas";

export const dynamic = "force-dynamic";

export const POST = apiRoute<{ id: string }>(async ({ request, params, runtime }) => {
  const body = await readJson(request, answerBody);
  return json({ question: await runtime.answerQuestion(params.id, body.text, body.requestKey) });
});
