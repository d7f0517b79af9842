import { readBodyLimited } from "@/lib/api/body";
import { json } from "@/lib/api/respond";
import { apiRoute } from "@/lib/api/route";
import { AtriumError } from "@/lib/errors";
import { ATTACHMENT_BYTE_LIMIT } from "@/lib/store/uploads";

export const dynamic = "force-dynamic";

/** Multipart upload (field `file`); held until a message names it in `attachments`. */
export const POST = apiRoute(async ({ request, runtime }) => {
  // The multipart envelope (boundaries, part headers) gets a little room above the file's own limit.
  const body = await readBodyLimited(request, ATTACHMENT_BYTE_LIMIT + 64 * 1024, `attachments are limited to ${ATTACHMENT_BYTE_LIMIT / 1024 / 1024} MiB`);
  let form: FormData;
  try {
    form = await new Response(body, { headers: { "content-type": request.headers.get("content-type") ?? "" } }).formData();
  } catch {
    throw new AtriumError("bad_request", "send the file as multipart/form-data in a field named file");
  }
  const file = form.get("file");
  if (!file || typeof file === "string") throw new AtriumError("bad_request", "file: a file field is required");
  const data = Buffer.from(await file.arrayBuffer());
  return json({ attachment: await runtime.upload(file.name, file.type, data) }, 201);
});
