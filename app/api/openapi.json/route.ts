import { openApiDocument } from "@/lib/api/openapi";
import { json } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";

export const dynamic = "force-dynamic";

/** Names the server as the client reached it: Next's request.url carries the configured host, not the Host header. */
export const GET = apiRoute(({ request }) => {
  const host = request.headers.get("x-forwarded-host") ?? request.headers.get("host");
  const scheme = request.headers.get("x-forwarded-proto") === "https" ? "https" : "http";
  return json(openApiDocument(host ? `${scheme}://${host}` : undefined));
});
