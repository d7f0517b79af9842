import { parseWith, queryParams } from "@/lib/api/request";
import { apiRoute } from "@/lib/api/route";
import { lastEventId, sseResponse } from "@/lib/api/sse";
import { idSchema } from "@/lib/store/ids";
import { z } from "zod";

export const dynamic = "force-dynamic";

const eventsQuery = z.object({ session: idSchema.optional(), lastEventId: z.string().optional() });

export const GET = apiRoute<{ id: string }>(({ request, params, runtime }) => {
  const query = parseWith(eventsQuery, queryParams(request));
  runtime.actor(params.id);
  return sseResponse(request, (send) =>
    runtime.subscribe(params.id, { lastEventId: lastEventId(request), session: query.session }, send),
  );
});
