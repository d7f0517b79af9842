import { openMultiplexedStream } from "@/lib/api/multiplexed-stream";
import { apiRoute } from "@/lib/api/route";

export const dynamic = "force-dynamic";

export const GET = apiRoute(({ request, runtime }) => openMultiplexedStream(request, runtime));
