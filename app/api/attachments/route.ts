import { json } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";
import { AtriumError } from "@/lib/errors";
import { ATTACHMENT_BYTE_LIMIT } from "@/lib/store/uploads";

export const dynamic = "force-dynamic";

/** Multipart upload (field `file`); held until a message names it in `attachments`. */
export const POST = apiRoute(async ({ request, runtime }) => {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > ATTACHMENT_BYTE_LIMIT + 64 * 1024) {
    throw new AtriumError("payload_too_large", `attachments are limited to ${ATTACHMENT_BYTE_LIMIT / 1024 / 1024} MiB`);
  }
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    throw new AtriumError("bad_request", "send the file as multipart/form-data in a field named file");
  }
  const file = form.get("file");
  if (!file || typeof file === "string") throw new AtriumError("bad_request", "file: a file field is required");
  const data = Buffer.from(await file.arrayBuffer());
  return json({ attachment: runtime.uploadAttachment(file.name, file.type, data) }, 201);
});
