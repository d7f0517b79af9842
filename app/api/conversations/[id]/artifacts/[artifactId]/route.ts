import { parseWith, queryParams } from "@/lib/api/request";
import { json } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";
import { z } from "zod";

export const dynamic = "force-dynamic";

const artifactQuery = z.object({ page: z.string().regex(/^[1-9]\d*$/, "must be a page number from 1").transform(Number).optional() });

export const GET = apiRoute<{ id: string; artifactId: string }>(({ request, params, runtime }) => {
  const { page = 1 } = parseWith(artifactQuery, queryParams(request));
  return json(runtime.readArtifact(params.id, params.artifactId, page));
});
