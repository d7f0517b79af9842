/**
 * The API's own router (issue 25): server.ts serves `/api/*` by calling the route handlers of
 * app/api directly, so an API or CLI client never loads Next (about 35 MiB and half a second
 * of CPU). It routes as Next's app router does: static segments before `[dynamic]` ones,
 * HEAD answered by GET without the body, OPTIONS by the methods a route has, and any other
 * method a route lacks with 405.
 */
export type RouteHandler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response> | Response;

export interface ApiRouteEntry {
  /** The route's folder under app/, e.g. `/api/conversations/[id]/items`. */
  pattern: string;
  load: () => Promise<object>;
}

export type ApiResolution =
  | { kind: "handler"; handler: RouteHandler; params: Record<string, string>; withoutBody: boolean }
  | { kind: "options"; allow: string[] }
  | { kind: "method_not_allowed"; allow: string[] }
  | { kind: "not_found" };

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

interface CompiledRoute {
  entry: ApiRouteEntry;
  /** A static segment's text, or null for `[name]`. */
  segments: Array<{ text: string } | { param: string }>;
}

export class ApiRouter {
  private readonly byLength = new Map<number, CompiledRoute[]>();
  private readonly modules = new Map<ApiRouteEntry, Promise<object>>();

  constructor(entries: readonly ApiRouteEntry[]) {
    for (const entry of entries) {
      const segments = entry.pattern
        .slice(1)
        .split("/")
        .map((part) => (part.startsWith("[") && part.endsWith("]") ? { param: part.slice(1, -1) } : { text: part }));
      const routes = this.byLength.get(segments.length) ?? [];
      routes.push({ entry, segments });
      this.byLength.set(segments.length, routes);
    }
    // Static segments win over dynamic ones, position by position (Next's order).
    for (const routes of this.byLength.values()) routes.sort((a, b) => specificity(b) - specificity(a));
  }

  /** `pathname` is the gate's normalized path (decoded, dot segments resolved). */
  async resolve(method: string, pathname: string): Promise<ApiResolution> {
    const parts = pathname.slice(1).split("/");
    const route = this.byLength.get(parts.length)?.find((candidate) => matches(candidate, parts));
    if (!route) return { kind: "not_found" };
    const params: Record<string, string> = {};
    route.segments.forEach((segment, index) => {
      if ("param" in segment) params[segment.param] = parts[index];
    });
    const routeModule = (await this.load(route.entry)) as Record<string, unknown>;
    const handler = (name: string) => (typeof routeModule[name] === "function" ? (routeModule[name] as RouteHandler) : null);
    const allow = METHODS.filter((name) => handler(name) !== null || (name === "HEAD" && handler("GET")) || name === "OPTIONS");
    const upper = method.toUpperCase();
    const own = handler(upper);
    if (own) return { kind: "handler", handler: own, params, withoutBody: upper === "HEAD" };
    if (upper === "HEAD" && handler("GET")) return { kind: "handler", handler: handler("GET")!, params, withoutBody: true };
    if (upper === "OPTIONS") return { kind: "options", allow };
    return { kind: "method_not_allowed", allow };
  }

  private load(entry: ApiRouteEntry): Promise<object> {
    let loaded = this.modules.get(entry);
    if (!loaded) {
      loaded = entry.load();
      this.modules.set(entry, loaded);
      // A module that failed to load is tried again by the next request.
      loaded.catch(() => this.modules.delete(entry));
    }
    return loaded;
  }
}

function matches(route: CompiledRoute, parts: string[]): boolean {
  return route.segments.every((segment, index) => ("param" in segment ? parts[index] !== "" : segment.text === parts[index]));
}

function specificity(route: CompiledRoute): number {
  // A bit per position, the first position weighing most: static beats dynamic left to right.
  return route.segments.reduce((score, segment) => score * 2 + ("text" in segment ? 1 : 0), 0);
}
