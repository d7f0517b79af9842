import { readJson } from "@/lib/api/request";
import { json } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";
import { addMachineBody } from "@/lib/api/schemas";

export const dynamic = "force-dynamic";

export const GET = apiRoute(({ runtime }) => json({ machines: runtime.machines.list() }));

export const POST = apiRoute(async ({ request, runtime }) => {
  const body = await readJson(request, addMachineBody);
  // A cluster node answers once every node can read it (DESIGN §10c).
  const added = await runtime.machines.add(body.name, body.roots);
  return json(added, 201);
});
