import { openApiDocument } from "@/lib/api/openapi";
import { json } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";
import { getAuthContext } from "@/lib/engine/runtime-registry";

export const dynamic = "force-dynamic";

/** Names the server as the client reached it: Next's request.url carries the configured host, not the Host header. */
export const GET = apiRoute(({ request }) => {
  // Forwarded headers count only behind a configured proxy (trustProxy, DESIGN §10).
  const trustProxy = getAuthContext().trustProxy === true;
  const host = (trustProxy ? request.headers.get("x-forwarded-host") : null) ?? request.headers.get("host");
  const scheme = trustProxy && request.headers.get("x-forwarded-proto") === "https" ? "https" : "http";
  return json(openApiDocument(host ? `${scheme}://${host}` : undefined));
});
