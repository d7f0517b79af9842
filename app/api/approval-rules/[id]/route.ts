import { AtriumError } from "@/lib/errors";
import { noContent } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";
import { idSchema } from "@/lib/store/id-schema";
import { approvalRulesOf } from "@/lib/tools/approval-rules";

export const dynamic = "force-dynamic";

export const DELETE = apiRoute<{ id: string }>(async ({ params, runtime }) => {
  const id = idSchema.safeParse(params.id);
  if (!id.success) throw new AtriumError("bad_request", "malformed rule id");
  if (!(await approvalRulesOf(runtime.store.paths.home).remove(id.data))) throw new AtriumError("not_found", `no approval rule ${id.data}`);
  return noContent();
});
