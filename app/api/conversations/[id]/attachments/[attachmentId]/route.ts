import { apiRoute } from "@/lib/api/route";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ id: string; attachmentId: string }>(async ({ params, runtime }) => {
  const { attachment, content } = await runtime.attachmentContent(params.id, params.attachmentId);
  return new Response(content.body, {
    headers: {
      "content-type": attachment.mediaType,
      "content-length": String(content.bytes),
      "content-disposition": `inline; filename*=UTF-8''${encodeURIComponent(attachment.name)}`,
      "x-content-type-options": "nosniff",
      "content-security-policy": "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox",
      "cache-control": "private, max-age=3600",
    },
  });
});
