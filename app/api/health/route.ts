import { apiRoute } from "@/lib/api/route";
import { json } from "@/lib/api/respond";
import { openStreamCount } from "@/lib/api/sse";

export const dynamic = "force-dynamic";

/** `streams`: SSE responses open right now (every route), so tests can count a browser's connections. */
export const GET = apiRoute(() => json({ status: "ok", streams: openStreamCount() }));
