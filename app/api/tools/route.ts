import { parseWith, queryParams } from "@/lib/api/request";
import { json } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";
import { toolsQuery } from "@/lib/api/schemas";
import { toolsOverview } from "@/lib/api/tools-overview";

export const dynamic = "force-dynamic";

export const GET = apiRoute(async ({ request, runtime }) => {
  const query = parseWith(toolsQuery, queryParams(request));
  return json(await toolsOverview(runtime, { cwd: query.cwd ?? runtime.config.defaultCwd, machine: query.machine }));
});
