import { parseWith, queryParams } from "@/lib/api/request";
import { json } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";
import { questionsQuery } from "@/lib/api/schemas";

export const dynamic = "force-dynamic";

export const GET = apiRoute(async ({ request, runtime }) => {
  const query = parseWith(questionsQuery, queryParams(request));
  return json({ questions: await runtime.listAllQuestions(query), nextCursor: null });
});
