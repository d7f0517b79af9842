import { json } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ id: string }>(async ({ params, runtime }) => json({ turns: await runtime.pages.listTurns(params.id), nextCursor: null }));
