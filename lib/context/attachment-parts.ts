import type { ModelConfig } from "../config/config";
import type { Item } from "../events/entities";
import { acceptedAttachments } from "../models/attachment-kinds";
import type { ConversationFiles } from "../store/conversation-files";
import type { UserPart } from "./history";

const TEXT_INLINE_LIMIT = 200_000;


/**
 * Attachments become image or file parts where the model takes them; text and JSON are
 * inlined as text; anything else gets a clear note of what was left out (DESIGN §9).
 */
export function attachmentPartsFor(files: ConversationFiles, conversationId: string, model: ModelConfig | undefined): (item: Item) => UserPart[] {
  const accepted = new Set<string>(acceptedAttachments(model));
  return (item) =>
    (item.attachments ?? []).map((attachment): UserPart => {
      // Read synchronously: a cluster's files were made ready for this request (prepareAttachments).
      const data = files.attachmentBytes(conversationId, attachment);
      if (!data) return { type: "text", text: `[Attachment ${attachment.name} is missing on this machine.]` };
      const isImage = attachment.mediaType.startsWith("image/");
      const isPdf = attachment.mediaType === "application/pdf";
      if (isImage && accepted.has("image")) return { type: "image", image: data, mediaType: attachment.mediaType };
      if (isPdf && accepted.has("pdf")) return { type: "file", data, mediaType: attachment.mediaType, filename: attachment.name };
      if (attachment.mediaType.startsWith("text/") || attachment.mediaType === "application/json") {
        const text = data.toString("utf8");
        const shown = text.length > TEXT_INLINE_LIMIT ? `${text.slice(0, TEXT_INLINE_LIMIT)}\n[… truncated]` : text;
        return { type: "text", text: `Attached file ${attachment.name} (${attachment.mediaType}):\n${shown}` };
      }
      return {
        type: "text",
        text: `[The owner attached ${attachment.name} (${attachment.mediaType}, ${attachment.bytes} bytes), but model ${model?.id ?? "?"} cannot take ${isImage ? "images" : "this file type"}; it was left out.]`,
      };
    });
}
