import type { ModelConfig } from "../config/config";

export type AttachmentKind = "image" | "pdf";

/**
 * What a model takes as image or file parts: its config entry's `attachments` when given, else
 * the provider's default. OpenAI and Anthropic models take images and PDFs; an OpenAI-compatible
 * server is often a local text-only model, and the offline model reads text, so neither is
 * assumed to take them (the composer warns before an image is sent to such a model).
 */
export function acceptedAttachments(model: Pick<ModelConfig, "provider" | "attachments"> | undefined): AttachmentKind[] {
  if (model?.attachments) return [...model.attachments];
  if (model?.provider === "openai" || model?.provider === "anthropic") return ["image", "pdf"];
  return [];
}
