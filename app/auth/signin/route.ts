import { readBodyLimited } from "@/lib/api/body";
import { sessionCookie } from "@/lib/auth/session";
import { tokensMatch } from "@/lib/auth/token";
import { getAccessToken, getAuthContext, getSessionStore } from "@/lib/engine/runtime-registry";

export const dynamic = "force-dynamic";

const SIGN_IN_FORM_LIMIT = 16 * 1024;

/**
 * Trades the access token for the HttpOnly session cookie (DESIGN §10): each sign-in starts
 * its own server-side session. Relative Location: the Host is the browser's.
 */
async function signIn(request: Request, token: string | null): Promise<Response> {
  if (!tokensMatch(getAccessToken(), token)) {
    return new Response(null, { status: 303, headers: { location: "/signin?error=1", "cache-control": "no-store" } });
  }
  // X-Forwarded-Proto is anyone's to send: it counts only behind a configured proxy (trustProxy).
  const secure = new URL(request.url).protocol === "https:" || (getAuthContext().trustProxy === true && request.headers.get("x-forwarded-proto") === "https");
  const sessionId = await getSessionStore().create(request.headers.get("user-agent"));
  return new Response(null, {
    status: 303,
    headers: { location: "/", "set-cookie": sessionCookie(sessionId, secure), "cache-control": "no-store" },
  });
}

export function GET(request: Request): Promise<Response> {
  return signIn(request, new URL(request.url).searchParams.get("token"));
}

export async function POST(request: Request): Promise<Response> {
  let token: string | null = null;
  try {
    const body = await readBodyLimited(request, SIGN_IN_FORM_LIMIT, "the sign-in form is too large");
    const form = await new Response(body, { headers: { "content-type": request.headers.get("content-type") ?? "" } }).formData();
    const value = form.get("token");
    token = typeof value === "string" ? value.trim() : null;
  } catch {
    token = null;
  }
  return signIn(request, token);
}
