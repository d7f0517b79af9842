import { parseWith, queryParams } from "@/lib/api/request";
import { json } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";
import { artifactQuery } from "@/lib/api/schemas";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ id: string; artifactId: string }>(async ({ request, params, runtime }) => {
  const { page = 1 } = parseWith(artifactQuery, queryParams(request));
  return json(await runtime.readArtifact(params.id, params.artifactId, page));
});
