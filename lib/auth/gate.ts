import { authenticate, type AuthContext, type HeaderBag } from "./session";
import { normalizeRequestPath } from "./request-path";

/** Paths a signed-out browser may load, matched on the normalized path: sign-in, static assets, the signed webhook. */
const PUBLIC_PATHS = [/^\/signin\/?$/, /^\/auth\/(signin|signout)$/, /^\/_next\/static\//, /^\/favicon\.ico$/, /^\/icon\.svg$/, /^\/api\/webhooks\/github$/];

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export type GateAnswer =
  | { kind: "pass" }
  | { kind: "redirect"; location: string }
  | { kind: "refuse"; status: 400 | 401 | 403; code: "bad_request" | "unauthorized" | "forbidden"; message: string };

export interface GateRequest {
  method: string;
  url: string;
  headers: HeaderBag & { host?: string | null; origin?: string | null; "sec-fetch-site"?: string | null; "x-forwarded-host"?: string | null; "x-forwarded-proto"?: string | null };
  encrypted?: boolean;
}

/**
 * The sign-in gate in front of Next (DESIGN §10). It decides on the path the router will
 * route (normalized), and refuses cookie-authenticated writes that come from another origin.
 */
export function gate(request: GateRequest, auth: AuthContext): GateAnswer {
  const normalized = normalizeRequestPath(request.url);
  if (!normalized.ok) return { kind: "refuse", status: 400, code: "bad_request", message: normalized.reason };
  const method = request.method.toUpperCase();
  const credential = authenticate(auth, request.headers);
  if (credential === "cookie" && !SAFE_METHODS.has(method) && !isSameOrigin(request, auth.trustProxy ?? false)) {
    return { kind: "refuse", status: 403, code: "forbidden", message: "a write authenticated by the session cookie must come from Atrium's own pages" };
  }
  if (credential !== null || PUBLIC_PATHS.some((pattern) => pattern.test(normalized.pathname))) return { kind: "pass" };
  if (normalized.pathname === "/api" || normalized.pathname.startsWith("/api/")) {
    return { kind: "refuse", status: 401, code: "unauthorized", message: "a valid access token is required (Authorization: Bearer <token>)" };
  }
  return { kind: "redirect", location: "/signin" };
}

/**
 * `Sec-Fetch-Site` when the browser sends it (`none` is the user's own navigation), else an
 * `Origin` equal to this server's. A request with neither is not trusted with a cookie.
 * `X-Forwarded-Host`/`-Proto` count only behind a configured proxy (`trustProxy`): anyone
 * can send them.
 */
export function isSameOrigin(request: Pick<GateRequest, "headers" | "encrypted">, trustProxy = false): boolean {
  const site = request.headers["sec-fetch-site"];
  if (site) return site === "same-origin" || site === "none";
  const origin = request.headers.origin;
  if (!origin || origin === "null") return false;
  return ownOrigins(request, trustProxy).includes(origin.toLowerCase());
}

function ownOrigins(request: Pick<GateRequest, "headers" | "encrypted">, trustProxy: boolean): string[] {
  const forwardedProto = trustProxy ? request.headers["x-forwarded-proto"]?.split(",")[0]?.trim().toLowerCase() : undefined;
  const scheme = forwardedProto === "https" || request.encrypted ? "https" : "http";
  const forwardedHost = trustProxy ? request.headers["x-forwarded-host"]?.split(",")[0]?.trim() : undefined;
  const hosts = [request.headers.host, forwardedHost].filter((host): host is string => Boolean(host));
  return hosts.map((host) => `${scheme}://${host.toLowerCase()}`);
}
