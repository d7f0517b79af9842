import { openStreamCount } from "./sse";

export const HEALTH_PATH = "/api/health";

/**
 * `GET /api/health`'s body. One function for both answerers: the route handler, and
 * server.ts, which answers it itself while Next is still preparing.
 * `streams`: SSE responses open right now (every route), so tests can count a browser's connections.
 */
export function healthBody(): { status: "ok"; streams: number } {
  return { status: "ok", streams: openStreamCount() };
}
