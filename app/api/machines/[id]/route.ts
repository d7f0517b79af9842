import { json, noContent } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";
import { LOCAL_MACHINE_ID } from "@/lib/machines/machine-schema";

export const dynamic = "force-dynamic";

/** `local` is the built-in machine's id (DESIGN §10b): the registry answers for it, not the id check. */
const BUILTIN = { namedIds: [LOCAL_MACHINE_ID] };

export const GET = apiRoute<{ id: string }>(({ params, runtime }) => json({ machine: runtime.machines.get(params.id) }), BUILTIN);

export const DELETE = apiRoute<{ id: string }>(async ({ params, runtime }) => {
  await runtime.machines.remove(params.id);
  return noContent();
}, BUILTIN);
