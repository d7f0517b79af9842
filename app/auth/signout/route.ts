import { clearedSessionCookie, sessionIdFrom } from "@/lib/auth/session";
import { getSessionStore } from "@/lib/engine/runtime-registry";

export const dynamic = "force-dynamic";

/**
 * Ends the session on the server (a copied cookie is worthless after this) and clears the
 * cookie; the page cleared the drafts from localStorage before posting.
 */
export async function POST(request: Request): Promise<Response> {
  await getSessionStore().delete(sessionIdFrom({ cookie: request.headers.get("cookie") }));
  return new Response(null, {
    status: 303,
    headers: { location: "/signin?signedOut=1", "set-cookie": clearedSessionCookie(), "cache-control": "no-store" },
  });
}
