import { json } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ id: string }>(({ params, runtime }) => json({ context: runtime.getContext(params.id) }));
