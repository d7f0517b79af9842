"use client";

import { FileIcon, Loader2Icon, PaperclipIcon, XIcon } from "lucide-react";
import { useParams } from "next/navigation";
import { useCallback, useEffect, useRef, useState } from "react";
import type { Attachment } from "@/lib/events/entities";
import { Button } from "@/components/ui/button";

/** 20 MiB, the server's limit (DESIGN §9). */
export const ATTACHMENT_LIMIT_BYTES = 20 * 1024 * 1024;

export interface PendingAttachment {
  key: string;
  name: string;
  status: "uploading" | "ready" | "failed";
  attachment: Attachment | null;
  error: string | null;
  /** An object URL for an image preview while the page is open. */
  preview: string | null;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

async function upload(file: File): Promise<Attachment> {
  if (file.size > ATTACHMENT_LIMIT_BYTES) throw new Error(`“${file.name}” is ${formatBytes(file.size)}; attachments are limited to 20 MB`);
  const form = new FormData();
  form.append("file", file, file.name);
  let response: Response;
  try {
    response = await fetch("/api/attachments", { method: "POST", body: form });
  } catch {
    throw new Error("Atrium could not be reached. Check that the server is running.");
  }
  const body = (await response.json().catch(() => null)) as { attachment?: Attachment; error?: { message?: string } } | null;
  if (response.status === 413) throw new Error(`“${file.name}” is too large: attachments are limited to 20 MB`);
  if (response.status === 415) {
    throw new Error(`Cannot attach “${file.name}” (${file.type || "unknown type"}): only images (PNG, JPEG, GIF, WebP), text, PDF and JSON can be attached`);
  }
  if (!response.ok || !body?.attachment) throw new Error(body?.error?.message ?? `Upload failed (${response.status})`);
  return body.attachment;
}

let counter = 0;

/**
 * Attachments being prepared for the next message. They live in memory only: never in drafts.
 * Paste of files anywhere on the page and drop of files onto the page add to them.
 */
export function useAttachmentTray() {
  const [items, setItems] = useState<PendingAttachment[]>([]);

  const add = useCallback((files: Iterable<File>) => {
    for (const raw of files) {
      const name = raw.name && raw.name !== "image.png" ? raw.name : raw.type.startsWith("image/") ? `pasted-${Date.now()}.${raw.type.split("/")[1] ?? "png"}` : raw.name || "file";
      const file = raw.name === name ? raw : new File([raw], name, { type: raw.type });
      const key = `a${++counter}`;
      const preview = file.type.startsWith("image/") ? URL.createObjectURL(file) : null;
      setItems((current) => [...current, { key, name, status: "uploading", attachment: null, error: null, preview }]);
      upload(file).then(
        (attachment) => setItems((current) => current.map((entry) => (entry.key === key ? { ...entry, status: "ready", attachment } : entry))),
        (error: unknown) =>
          setItems((current) =>
            current.map((entry) => (entry.key === key ? { ...entry, status: "failed", error: error instanceof Error ? error.message : String(error) } : entry)),
          ),
      );
    }
  }, []);

  const remove = useCallback((key: string) => setItems((current) => current.filter((entry) => entry.key !== key)), []);
  const clear = useCallback(() => setItems([]), []);
  const restore = useCallback((entries: PendingAttachment[]) => setItems((current) => [...current, ...entries]), []);

  useEffect(() => {
    const onPaste = (event: ClipboardEvent) => {
      const files = Array.from(event.clipboardData?.files ?? []);
      if (files.length === 0) return;
      event.preventDefault();
      add(files);
    };
    const hasFiles = (event: DragEvent) => Array.from(event.dataTransfer?.types ?? []).includes("Files");
    const onDragOver = (event: DragEvent) => {
      if (hasFiles(event)) event.preventDefault();
    };
    const onDrop = (event: DragEvent) => {
      if (!hasFiles(event)) return;
      event.preventDefault();
      add(Array.from(event.dataTransfer?.files ?? []));
    };
    document.addEventListener("paste", onPaste);
    document.addEventListener("dragover", onDragOver);
    document.addEventListener("drop", onDrop);
    return () => {
      document.removeEventListener("paste", onPaste);
      document.removeEventListener("dragover", onDragOver);
      document.removeEventListener("drop", onDrop);
    };
  }, [add]);

  const ready = items.filter((entry) => entry.status === "ready" && entry.attachment);
  return {
    items,
    add,
    remove,
    clear,
    restore,
    uploading: items.some((entry) => entry.status === "uploading"),
    ready,
    ids: ready.map((entry) => entry.attachment!.id),
  };
}

export type AttachmentTray = ReturnType<typeof useAttachmentTray>;

/** The paperclip button of the composer's toolbar. */
export function AttachButton({ tray, disabled }: { tray: AttachmentTray; disabled?: boolean }) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <input
        ref={input}
        type="file"
        multiple
        hidden
        aria-label="Attach files"
        data-testid="attach-input"
        onChange={(event) => {
          if (event.target.files) tray.add(Array.from(event.target.files));
          event.target.value = "";
        }}
      />
      <Button type="button" variant="ghost" size="icon-sm" aria-label="Attach files" title="Attach files (or paste, or drop them here)" disabled={disabled} onClick={() => input.current?.click()}>
        <PaperclipIcon />
      </Button>
    </>
  );
}

/** Chips of the attachments waiting to be sent, each with Remove. */
export function AttachmentChips({ tray }: { tray: AttachmentTray }) {
  if (tray.items.length === 0) return null;
  return (
    <ul aria-label="Attachments to send" className="mb-2 flex flex-wrap gap-1.5">
      {tray.items.map((entry) => (
        <li
          key={entry.key}
          data-status={entry.status}
          className={`flex max-w-full items-center gap-1.5 rounded-lg border bg-background py-1 pr-1 pl-1.5 text-xs ${entry.status === "failed" ? "border-destructive/50 text-destructive" : ""}`}
        >
          {entry.preview ? (
            // eslint-disable-next-line @next/next/no-img-element
            <img src={entry.preview} alt="" className="size-6 rounded object-cover" />
          ) : (
            <FileIcon className="size-3.5 shrink-0" />
          )}
          <span className="max-w-48 truncate">{entry.name}</span>
          {entry.status === "uploading" && <Loader2Icon className="size-3.5 animate-spin" aria-label="Uploading" />}
          {entry.attachment && <span className="text-muted-foreground">{formatBytes(entry.attachment.bytes)}</span>}
          {entry.error && (
            <span role="alert" className="min-w-0 break-words" title={entry.error}>
              {entry.error}
            </span>
          )}
          <Button type="button" variant="ghost" size="icon-xs" className="size-5" aria-label={`Remove ${entry.name}`} onClick={() => tray.remove(entry.key)}>
            <XIcon />
          </Button>
        </li>
      ))}
    </ul>
  );
}

/** Attachments shown in a sent message: image thumbnails and file chips linking to the file. */
export function MessageAttachments({ attachments, conversationId }: { attachments: Attachment[]; conversationId?: string }) {
  const params = useParams<{ id?: string }>();
  const id = conversationId ?? params?.id;
  if (attachments.length === 0) return null;
  const href = (attachment: Attachment) => (id ? `/api/conversations/${id}/attachments/${attachment.id}` : undefined);
  return (
    <ul aria-label="Attachments" className="mt-2 flex flex-wrap gap-1.5">
      {attachments.map((attachment) => (
        <li key={attachment.id} data-attachment-id={attachment.id}>
          {attachment.mediaType.startsWith("image/") && href(attachment) ? (
            <a href={href(attachment)} target="_blank" rel="noreferrer" className="block" aria-label={`Open image ${attachment.name}`}>
              {/* eslint-disable-next-line @next/next/no-img-element */}
              <img src={href(attachment)} alt={attachment.name} className="h-28 max-w-60 min-w-12 rounded-lg border bg-background object-contain" />
            </a>
          ) : (
            <a
              href={href(attachment)}
              target="_blank"
              rel="noreferrer"
              className="inline-flex items-center gap-1.5 rounded-md border bg-background px-2 py-1 text-xs hover:bg-accent"
              aria-label={`Open file ${attachment.name}`}
            >
              <PaperclipIcon className="size-3.5" />
              <span className="max-w-48 truncate">{attachment.name}</span>
              <span className="text-muted-foreground">{formatBytes(attachment.bytes)}</span>
            </a>
          )}
        </li>
      ))}
    </ul>
  );
}
