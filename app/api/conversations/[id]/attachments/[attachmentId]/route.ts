import fs from "node:fs";
import { apiRoute } from "@/lib/api/route";
import { AtriumError } from "@/lib/errors";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ id: string; attachmentId: string }>(({ params, runtime }) => {
  const { path, attachment } = runtime.attachmentFile(params.id, params.attachmentId);
  let data: Buffer;
  try {
    data = fs.readFileSync(path);
  } catch {
    throw new AtriumError("not_found", `the file of attachment ${params.attachmentId} is missing on this machine`);
  }
  return new Response(new Uint8Array(data), {
    headers: {
      "content-type": attachment.mediaType,
      "content-length": String(data.length),
      "content-disposition": `inline; filename*=UTF-8''${encodeURIComponent(attachment.name)}`,
      "x-content-type-options": "nosniff",
      "content-security-policy": "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox",
      "cache-control": "private, max-age=3600",
    },
  });
});
