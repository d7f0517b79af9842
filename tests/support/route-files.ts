import fs from "node:fs";
import path from "node:path";

const API_ROOT = path.resolve(import.meta.dirname, "..", "..", "app", "api");
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

export interface RouteFile {
  /** The OpenAPI-style path: `[id]` folders become `{id}`. */
  route: string;
  /** Lower-case HTTP methods the file exports. */
  methods: string[];
  file: string;
}

/** Every route.ts under app/api with the methods it exports: what the app really serves. */
export function apiRouteFiles(directory = API_ROOT): RouteFile[] {
  const found: RouteFile[] = [];
  for (const entry of fs.readdirSync(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) found.push(...apiRouteFiles(full));
    else if (entry.name === "route.ts") {
      const source = fs.readFileSync(full, "utf8");
      const methods = METHODS.filter((method) => new RegExp(`^export (const|async function|function) ${method}\\b`, "m").test(source)).map((method) => method.toLowerCase());
      const relative = path.relative(API_ROOT, directory).split(path.sep).map((segment) => segment.replace(/^\[(\w+)\]$/, "{$1}"));
      found.push({ route: ["/api", ...relative].filter(Boolean).join("/"), methods, file: full });
    }
  }
  return found.sort((a, b) => a.route.localeCompare(b.route));
}
