import { json, noContent } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ id: string }>(({ params, runtime }) => json({ machine: runtime.machines.get(params.id) }));

export const DELETE = apiRoute<{ id: string }>(async ({ params, runtime }) => {
  await runtime.machines.remove(params.id);
  return noContent();
});
