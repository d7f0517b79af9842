"use client";

import { AlertCircleIcon, Loader2Icon, PencilIcon, RotateCwIcon, XIcon } from "lucide-react";
import { Button } from "@/components/ui/button";
import type { PendingAttachment } from "@/components/attachments/attachments";
import type { SendMode } from "./send-mode";

/** How long a send may go unanswered before it shows as failed (it may still land: Retry reuses its requestKey). */
export const SEND_TIMEOUT_MS = 10_000;

export interface OutgoingMessage {
  requestKey: string;
  text: string;
  mode: SendMode | "auto";
  /** sent: the server answered; the row stays until the message shows in the history or waiting list. */
  status: "sending" | "failed" | "sent";
  error: string | null;
  /** The message id the server answered with. */
  messageId?: string;
  /** Uploaded attachments sent with the message; kept in memory with a failed send, never in drafts. */
  attachments?: PendingAttachment[];
}

/**
 * Messages on their way, at the end of the history where they will land: "Sending…" at once,
 * then the real message replaces the row; a failure or a silent server shows the error with
 * Retry (same requestKey, so the server never makes two), Edit and Discard.
 */
export function OutgoingMessages({
  outgoing,
  onRetry,
  onEdit,
  onDiscard,
}: {
  outgoing: OutgoingMessage[];
  onRetry: (message: OutgoingMessage) => void;
  onEdit: (message: OutgoingMessage) => void;
  onDiscard: (message: OutgoingMessage) => void;
}) {
  const pending = outgoing.filter((message) => message.status !== "failed");
  const failed = outgoing.filter((message) => message.status === "failed");
  if (outgoing.length === 0) return null;
  return (
    <div className="mx-auto flex w-full max-w-3xl flex-col gap-3 px-4 pb-4 md:px-6">
      {pending.length > 0 && (
        <ul aria-label="Messages being sent" className="grid gap-3">
          {pending.map((message) => (
            <li key={message.requestKey} className="flex flex-col items-end gap-1" data-outgoing-status={message.status}>
              <div className="max-w-[85%] rounded-2xl rounded-br-md bg-muted/60 px-4 py-2.5 text-[15px] break-words whitespace-pre-wrap text-foreground/80 md:max-w-[75%]">
                {message.text}
              </div>
              <p className="flex items-center gap-1.5 text-xs text-muted-foreground" role="status">
                <Loader2Icon className="size-3 animate-spin" aria-hidden />
                Sending…
              </p>
            </li>
          ))}
        </ul>
      )}
      {failed.length > 0 && (
        <ul aria-label="Messages not sent" className="grid gap-3">
          {failed.map((message) => (
            <li key={message.requestKey} className="flex flex-col items-end gap-1">
              <div className="max-w-[85%] rounded-2xl rounded-br-md border border-destructive/40 bg-destructive/5 px-4 py-2.5 text-[15px] break-words whitespace-pre-wrap md:max-w-[75%]">
                {message.text}
              </div>
              <div className="flex max-w-full flex-wrap items-center justify-end gap-1">
                <p className="flex items-center gap-1 text-xs text-destructive" role="alert">
                  <AlertCircleIcon className="size-3.5 shrink-0" aria-hidden />
                  Not sent: {message.error}
                </p>
                <Button size="xs" variant="outline" onClick={() => onRetry(message)}>
                  <RotateCwIcon />
                  Retry
                </Button>
                <Button size="xs" variant="ghost" aria-label="Edit unsent message" title="Put it back in the composer" onClick={() => onEdit(message)}>
                  <PencilIcon />
                  Edit
                </Button>
                <Button size="icon-xs" variant="ghost" aria-label="Discard unsent message" title="Discard" onClick={() => onDiscard(message)}>
                  <XIcon />
                </Button>
              </div>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
