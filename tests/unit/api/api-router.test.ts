import path from "node:path";
import { describe, expect, it } from "vitest";
import { API_ROUTES } from "@/app/api/api-routes";
import { ApiRouter, type ApiRouteEntry, type RouteHandler } from "@/lib/api/api-router";
import { apiRouteFiles } from "../../support/route-files";

const handler = (name: string): RouteHandler => async () => new Response(name);

async function answerOf(router: ApiRouter, method: string, pathname: string): Promise<string> {
  const resolution = await router.resolve(method, pathname);
  if (resolution.kind !== "handler") return `${resolution.kind}${"allow" in resolution ? ` ${resolution.allow.join(",")}` : ""}`;
  const response = await resolution.handler(new Request(`http://x${pathname}`), { params: Promise.resolve(resolution.params) });
  return `${await response.text()} ${JSON.stringify(resolution.params)}${resolution.withoutBody ? " without body" : ""}`;
}

describe("the API router", () => {
  const entries: ApiRouteEntry[] = [
    { pattern: "/api/things/[id]", load: async () => ({ GET: handler("thing"), DELETE: handler("delete thing") }) },
    { pattern: "/api/things/special", load: async () => ({ GET: handler("special") }) },
    { pattern: "/api/things", load: async () => ({ GET: handler("list"), POST: handler("create") }) },
    { pattern: "/api/things/[id]/parts/[partId]", load: async () => ({ PATCH: handler("part") }) },
  ];
  const router = new ApiRouter(entries);

  it("routes static segments before dynamic ones and passes the dynamic ones as params", async () => {
    expect(await answerOf(router, "GET", "/api/things/special")).toBe("special {}");
    expect(await answerOf(router, "GET", "/api/things/01J")).toBe('thing {"id":"01J"}');
    expect(await answerOf(router, "DELETE", "/api/things/01J")).toBe('delete thing {"id":"01J"}');
    expect(await answerOf(router, "PATCH", "/api/things/a/parts/b")).toBe('part {"id":"a","partId":"b"}');
    expect(await answerOf(router, "POST", "/api/things")).toBe("create {}");
  });

  it("answers HEAD with GET's handler without the body, OPTIONS and other methods with what the route takes", async () => {
    expect(await answerOf(router, "HEAD", "/api/things")).toBe("list {} without body");
    expect(await answerOf(router, "OPTIONS", "/api/things")).toBe("options GET,HEAD,POST,OPTIONS");
    expect(await answerOf(router, "PUT", "/api/things")).toBe("method_not_allowed GET,HEAD,POST,OPTIONS");
    expect(await answerOf(router, "GET", "/api/things/a/parts/b")).toBe("method_not_allowed PATCH,OPTIONS");
  });

  it("finds no route for a path it does not know, an empty segment or the wrong depth", async () => {
    expect(await answerOf(router, "GET", "/api/nothing")).toBe("not_found");
    expect(await answerOf(router, "GET", "/api/things/a/parts")).toBe("not_found");
    expect(await answerOf(router, "GET", "/api/things/a/parts/")).toBe("not_found");
  });

  it("loads a route's module once, at its first request, and again after a failed load", async () => {
    let loads = 0;
    let fail = true;
    const flaky = new ApiRouter([
      {
        pattern: "/api/flaky",
        load: async () => {
          loads += 1;
          if (fail) throw new Error("not today");
          return { GET: handler("flaky") };
        },
      },
    ]);
    expect(loads).toBe(0);
    await expect(flaky.resolve("GET", "/api/flaky")).rejects.toThrow("not today");
    fail = false;
    expect(await answerOf(flaky, "GET", "/api/flaky")).toBe("flaky {}");
    expect(await answerOf(flaky, "GET", "/api/flaky")).toBe("flaky {}");
    expect(loads).toBe(2);
  });
});

describe("app/api/api-routes.ts", () => {
  it("names every route file under app/api, each once, and loads the module of that folder with its methods", async () => {
    const files = apiRouteFiles();
    const patterns = API_ROUTES.map((entry) => entry.pattern.replace(/\[(\w+)\]/g, "{$1}")).sort((a, b) => a.localeCompare(b));
    expect(patterns).toEqual(files.map((file) => file.route));
    expect(new Set(patterns).size).toBe(patterns.length);
    for (const entry of API_ROUTES) {
      const file = files.find((candidate) => candidate.route === entry.pattern.replace(/\[(\w+)\]/g, "{$1}"))!;
      const loaded = (await entry.load()) as Record<string, unknown>;
      const exported = ["GET", "POST", "PUT", "PATCH", "DELETE"].filter((method) => typeof loaded[method] === "function").map((method) => method.toLowerCase());
      // The webhook route exports a function declaration; route-files reads `export async function` too.
      expect(exported, path.relative(process.cwd(), file.file)).toEqual(file.methods);
    }
  }, 60_000);
});
