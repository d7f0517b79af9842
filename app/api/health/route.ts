import { apiRoute } from "@/lib/api/route";
import { json } from "@/lib/api/respond";

export const dynamic = "force-dynamic";

export const GET = apiRoute(() => json({ status: "ok" }));
