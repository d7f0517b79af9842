import { apiRoute } from "@/lib/api/route";
import { sseResponse } from "@/lib/api/sse";

export const dynamic = "force-dynamic";

export const GET = apiRoute(({ request, runtime }) => sseResponse(request, (send) => runtime.subscribeList(send)));
