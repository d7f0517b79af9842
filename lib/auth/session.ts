import crypto from "node:crypto";
import { SESSION_COOKIE, tokensMatch } from "./token";

/** The cookie holds a value derived from the token, so the token itself never sits in a cookie jar. */
export function sessionValue(token: string): string {
  return crypto.createHmac("sha256", token).update("atrium-browser-session").digest("base64url");
}

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

/** Which credential authenticates the request: a Bearer header decides on its own, else the session cookie (DESIGN §10). */
export function authenticate(token: string, headers: HeaderBag): "bearer" | "cookie" | null {
  const authorization = headers.authorization ?? "";
  if (authorization.startsWith("Bearer ")) return tokensMatch(token, authorization.slice(7).trim()) ? "bearer" : null;
  const cookie = readCookie(headers.cookie, SESSION_COOKIE);
  return cookie !== null && tokensMatch(sessionValue(token), cookie) ? "cookie" : null;
}

export function isAuthorized(token: string, headers: HeaderBag): boolean {
  return authenticate(token, headers) !== null;
}

export function sessionCookie(token: string, secure: boolean): string {
  const attributes = [`${SESSION_COOKIE}=${sessionValue(token)}`, "Path=/", "HttpOnly", "SameSite=Strict", "Max-Age=31536000"];
  if (secure) attributes.push("Secure");
  return attributes.join("; ");
}

export function clearedSessionCookie(): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`;
}
