// JavaScript, not TypeScript: Next compiles a next.config.ts at every server start, and loading
// its compiler for that cost ~25 MiB of idle memory and 50–250 ms of each start (issue 15).
/** @type {import("next").NextConfig} */
const nextConfig = {
  // better-sqlite3 is a native addon; the Runtime owns the only handle, created in server.ts.
  serverExternalPackages: ["better-sqlite3"],
  typedRoutes: false,
  poweredByHeader: false,
  // No gzip of every answer: Atrium serves its own machine or a LAN (a reverse proxy in front
  // compresses if it wants to); gzipping each small JSON answer was ~3 % of the server's CPU
  // under 20 concurrent turns (issue 15). Event streams were never compressed.
  compress: false,
  // Next type-checks only the app's own code; tests and tools are checked by `npm run typecheck`.
  typescript: { tsconfigPath: "tsconfig.next.json" },
};

export default nextConfig;
