import { readJson, parseWith, queryParams } from "@/lib/api/request";
import { json } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";
import { createConversationBody, listConversationsQuery } from "@/lib/api/schemas";

export const dynamic = "force-dynamic";

export const GET = apiRoute(async ({ request, runtime }) => {
  const query = parseWith(listConversationsQuery, queryParams(request));
  const limit = Math.min(query.limit ?? 50, 200);
  const offset = Number(query.cursor ?? "0");
  const listed = await runtime.listConversations({
    archived: query.archived,
    q: query.q,
    offset,
    limit,
    sort: query.sort,
    direction: query.direction,
    model: query.model,
  });
  const total = listed.total;
  const conversations = await runtime.withHolders(listed.conversations);
  const nextCursor = offset + conversations.length < total ? String(offset + conversations.length) : null;
  return json({ conversations, nextCursor, total });
});

export const POST = apiRoute(async ({ request, runtime }) => {
  const body = await readJson(request, createConversationBody);
  const created = await runtime.createConversation({ ...body, effort: body.effort ?? undefined });
  return json(created, 201);
});
