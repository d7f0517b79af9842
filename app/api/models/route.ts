import { json } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";

export const dynamic = "force-dynamic";

export const GET = apiRoute(({ runtime }) =>
  json({ models: runtime.models.list(), defaultModel: runtime.config.defaultModel, nextCursor: null }),
);
