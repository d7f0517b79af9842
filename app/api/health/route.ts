import { healthBody } from "@/lib/api/health";
import { apiRoute } from "@/lib/api/route";
import { json } from "@/lib/api/respond";

export const dynamic = "force-dynamic";

/** server.ts answers this path itself until Next is prepared, with the same body (lib/api/health). */
export const GET = apiRoute(() => json(healthBody()));
