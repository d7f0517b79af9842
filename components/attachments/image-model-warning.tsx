"use client";

import { TriangleAlertIcon } from "lucide-react";
import type { ModelInfo } from "@/lib/events/entities";
import type { AttachmentTray } from "./attachments";

/** Images waiting to be sent that the model would not see (ModelInfo.attachments), by name. */
export function imagesTheModelCannotTake(tray: Pick<AttachmentTray, "items">, model: Pick<ModelInfo, "attachments"> | undefined): string[] {
  if (!model || model.attachments?.includes("image")) return [];
  return tray.items
    .filter((entry) => entry.status !== "failed" && (entry.attachment?.mediaType.startsWith("image/") ?? entry.preview !== null))
    .map((entry) => entry.name);
}

/**
 * Before sending: says that the chosen model cannot take images, so an attached image reaches it
 * only as a line of text naming the file, and which configured models could see it.
 */
export function ImageModelWarning({ tray, model, models }: { tray: Pick<AttachmentTray, "items">; model: ModelInfo | undefined; models: ModelInfo[] }) {
  const names = imagesTheModelCannotTake(tray, model);
  if (!model || names.length === 0) return null;
  const able = models.filter((candidate) => candidate.attachments?.includes("image")).map((candidate) => candidate.id);
  const files = names.length === 1 ? `“${names[0]}” is an image` : `${names.length} attachments are images`;
  return (
    <p role="status" data-testid="image-model-warning" className="mb-2 flex items-start gap-1.5 rounded-lg border border-amber-500/40 bg-amber-500/10 px-2.5 py-1.5 text-xs text-amber-900 dark:text-amber-200">
      <TriangleAlertIcon className="mt-0.5 size-3.5 shrink-0" aria-hidden />
      <span>
        {files}, but model {model.id} cannot take images: it will only be told the file’s name.{" "}
        {able.length > 0 ? `Models that can see images: ${able.join(", ")}.` : "No configured model takes images."}
      </span>
    </p>
  );
}
