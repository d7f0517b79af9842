import { clearedSessionCookie } from "@/lib/auth/session";

export const dynamic = "force-dynamic";

/** Clears the session cookie; the page cleared the drafts from localStorage before posting. */
export function POST(): Response {
  return new Response(null, {
    status: 303,
    headers: { location: "/signin?signedOut=1", "set-cookie": clearedSessionCookie(), "cache-control": "no-store" },
  });
}
