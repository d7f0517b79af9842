import type { SessionLookup } from "./session-store";
import { SESSION_COOKIE, tokensMatch } from "./token";

export function readCookie(header: string | null | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(";")) {
    const separator = part.indexOf("=");
    if (separator === -1) continue;
    if (part.slice(0, separator).trim() !== name) continue;
    try {
      return decodeURIComponent(part.slice(separator + 1).trim());
    } catch {
      return null;
    }
  }
  return null;
}

export interface HeaderBag {
  authorization?: string | null;
  cookie?: string | null;
}

/** What a request is checked against: the access token (Bearer) and the live browser sessions (cookie). */
export interface AuthContext {
  token: string;
  sessions: SessionLookup;
  /** Trust `X-Forwarded-Host`/`-Proto` in the same-origin check (config `trustProxy`). */
  trustProxy?: boolean;
}

/** The session id the cookie carries, if any (not checked). */
export function sessionIdFrom(headers: HeaderBag): string | null {
  return readCookie(headers.cookie, SESSION_COOKIE);
}

/** Which credential authenticates the request: a Bearer header decides on its own, else the session cookie (DESIGN §10). */
export function authenticate(auth: AuthContext, headers: HeaderBag): "bearer" | "cookie" | null {
  const authorization = headers.authorization ?? "";
  if (authorization.startsWith("Bearer ")) return tokensMatch(auth.token, authorization.slice(7).trim()) ? "bearer" : null;
  const cookie = sessionIdFrom(headers);
  return cookie !== null && auth.sessions.verify(cookie) ? "cookie" : null;
}

export function isAuthorized(auth: AuthContext, headers: HeaderBag): boolean {
  return authenticate(auth, headers) !== null;
}

/** The cookie for a new session: the browser keeps it a year, the server ends it at sign-out. */
export function sessionCookie(sessionId: string, secure: boolean): string {
  const attributes = [`${SESSION_COOKIE}=${sessionId}`, "Path=/", "HttpOnly", "SameSite=Strict", "Max-Age=31536000"];
  if (secure) attributes.push("Secure");
  return attributes.join("; ");
}

export function clearedSessionCookie(): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`;
}
