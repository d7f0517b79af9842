import { parseWith, queryParams } from "@/lib/api/request";
import { json } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";
import { projectsQuery } from "@/lib/api/schemas";

export const dynamic = "force-dynamic";

/** Recent projects (folder + machine), the last used first: the new-chat picker offers them (DESIGN §8, §9). */
export const GET = apiRoute(async ({ request, runtime }) => {
  const query = parseWith(projectsQuery, queryParams(request));
  return json({ projects: await runtime.reads.recentProjects({ machine: query.machine, agent: query.agent }), nextCursor: null });
});
