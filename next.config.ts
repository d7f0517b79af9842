import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // better-sqlite3 is a native addon; the Runtime owns the only handle, created in server.ts.
  serverExternalPackages: ["better-sqlite3"],
  typedRoutes: false,
  poweredByHeader: false,
  // Next type-checks only the app's own code; tests and tools are checked by `npm run typecheck`.
  typescript: { tsconfigPath: "tsconfig.next.json" },
};

export default nextConfig;
