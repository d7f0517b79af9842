import type http from "node:http";

/** Every answer (DESIGN §10): no MIME sniffing, no Referer to other sites. */
export const COMMON_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

/**
 * Pages also refuse to be framed (clickjacking, issue 21 finding 2). The CSP holds only
 * directives that leave Next's inline scripts and styles alone.
 */
export const PAGE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": "frame-ancestors 'none'; base-uri 'self'; object-src 'none'",
  "x-frame-options": "DENY",
};

function isApiPath(url: string): boolean {
  const end = url.search(/[?#]/);
  const pathname = end === -1 ? url : url.slice(0, end);
  return pathname === "/api" || pathname.startsWith("/api/");
}

/** Set before the gate or Next writes anything: writeHead merges these with its own headers. */
export function applySecurityHeaders(request: http.IncomingMessage, response: http.ServerResponse): void {
  for (const [name, value] of Object.entries(COMMON_SECURITY_HEADERS)) response.setHeader(name, value);
  if (!isApiPath(request.url ?? "/")) {
    for (const [name, value] of Object.entries(PAGE_SECURITY_HEADERS)) response.setHeader(name, value);
  }
}
