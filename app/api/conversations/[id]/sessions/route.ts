import { json } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ id: string }>(async ({ params, runtime }) => json({ sessions: await runtime.pages.listSessions(params.id) }));
