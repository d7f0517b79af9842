import { openApiDocument } from "@/lib/api/openapi";
import { json } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";

export const dynamic = "force-dynamic";

export const GET = apiRoute(({ request }) => json(openApiDocument(new URL(request.url).origin)));
