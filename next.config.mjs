// JavaScript, not TypeScript: Next compiles a next.config.ts at every server start, and loading
// its compiler for that cost ~25 MiB of idle memory and 50–250 ms of each start (issue 15).
/** @type {import("next").NextConfig} */
const nextConfig = {
  // better-sqlite3 is a native addon; the Runtime owns the only handle, created in server.ts.
  serverExternalPackages: ["better-sqlite3"],
  typedRoutes: false,
  poweredByHeader: false,
  // Next type-checks only the app's own code; tests and tools are checked by `npm run typecheck`.
  typescript: { tsconfigPath: "tsconfig.next.json" },
};

export default nextConfig;
