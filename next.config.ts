import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // better-sqlite3 is a native addon; the Runtime owns the only handle, created in server.ts.
  serverExternalPackages: ["better-sqlite3"],
  typedRoutes: false,
  poweredByHeader: false,
};

export default nextConfig;
