import { parseWith, queryParams } from "@/lib/api/request";
import { json } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";
import { foldersQuery } from "@/lib/api/schemas";
import { listFolders } from "@/lib/machines/folder-listing";

export const dynamic = "force-dynamic";

/** The new-chat folder browser: the folders in one folder of a machine, read on that machine. */
export const GET = apiRoute(async ({ request, runtime }) => {
  const query = parseWith(foldersQuery, queryParams(request));
  return json(await listFolders(runtime.machines, query.machine, query.path, runtime.config.defaultCwd));
});
