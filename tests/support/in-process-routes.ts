import { registerRuntime, unregisterRuntime } from "@/lib/engine/runtime-registry";
import type { Runtime } from "@/lib/engine/runtime";

export const ROUTE_TOKEN = "in-process-route-token-0123456789";

type Handler<P> = (request: Request, context: { params: Promise<P> }) => Promise<Response>;

/**
 * The app's route handlers called in this process against a harness's Runtime, as Next calls
 * them (the Runtime on globalThis, the token checked by the handler itself).
 */
export function routesFor(runtime: Runtime): {
  call<P extends Record<string, string>>(handler: Handler<P>, init: { method?: string; path: string; params?: P; body?: unknown; form?: FormData; headers?: Record<string, string>; signal?: AbortSignal }): Promise<Response>;
  close(): void;
} {
  registerRuntime(runtime, ROUTE_TOKEN);
  return {
    call(handler, init) {
      const headers: Record<string, string> = { authorization: `Bearer ${ROUTE_TOKEN}`, ...init.headers };
      let body: BodyInit | undefined;
      if (init.form) body = init.form;
      else if (init.body !== undefined) {
        headers["content-type"] = "application/json";
        body = JSON.stringify(init.body);
      }
      const request = new Request(`http://127.0.0.1${init.path}`, { method: init.method ?? (body ? "POST" : "GET"), headers, body, signal: init.signal });
      return handler(request, { params: Promise.resolve((init.params ?? {}) as never) });
    },
    close: unregisterRuntime,
  };
}
