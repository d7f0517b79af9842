import { json } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ turnId: string }>(async ({ params, runtime }) =>
  json({ turn: await runtime.pages.getTurn(params.turnId), timeline: runtime.timeline(params.turnId) }),
);
