import { parseWith, queryParams } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { conversationEventsQuery } from "@/lib/api/schemas";
import { lastEventId, sseResponse } from "@/lib/api/sse";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ id: string }>(({ request, params, runtime }) => {
  const query = parseWith(conversationEventsQuery, queryParams(request));
  runtime.actor(params.id);
  // Ended when this node stops carrying the conversation (its lease lost): the client reconnects to its holder.
  return sseResponse(request, (send, end) =>
    runtime.subscribe(params.id, { lastEventId: lastEventId(request), session: query.session }, send, end),
  );
});
