"use client";

import { AlertCircleIcon, Loader2Icon, PencilIcon, RotateCwIcon, XIcon } from "lucide-react";
import { Button } from "@/components/ui/button";
import type { PendingAttachment } from "@/components/attachments/attachments";
import type { SendMode } from "./composer";

export interface OutgoingMessage {
  requestKey: string;
  text: string;
  mode: SendMode | "auto";
  status: "sending" | "failed";
  error: string | null;
  /** Uploaded attachments sent with the message; kept in memory with a failed send, never in drafts. */
  attachments?: PendingAttachment[];
}

/** Messages whose POST failed: Retry resends with the same requestKey, so the server never makes two. */
export function FailedSends({
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
  const shown = outgoing.filter((message) => message.status === "failed" || message.error !== null);
  if (shown.length === 0) return null;
  return (
    <ul aria-label="Messages not sent" className="mb-2 grid gap-1.5">
      {shown.map((message) => (
        <li key={message.requestKey} className="flex items-start gap-2 rounded-xl border border-destructive/40 bg-destructive/5 px-3 py-2 text-sm">
          <AlertCircleIcon className="mt-0.5 size-4 shrink-0 text-destructive" />
          <div className="min-w-0 flex-1">
            <p className="line-clamp-2 break-words whitespace-pre-wrap">{message.text}</p>
            <p className="text-xs text-destructive">Not sent: {message.error}</p>
          </div>
          <div className="flex shrink-0 items-center gap-0.5">
            <Button size="xs" variant="outline" onClick={() => onRetry(message)} disabled={message.status === "sending"}>
              {message.status === "sending" ? <Loader2Icon className="animate-spin" /> : <RotateCwIcon />}
              Retry
            </Button>
            <Button size="icon-xs" variant="ghost" aria-label="Edit unsent message" title="Put it back in the composer" onClick={() => onEdit(message)}>
              <PencilIcon />
            </Button>
            <Button size="icon-xs" variant="ghost" aria-label="Discard unsent message" title="Discard" onClick={() => onDiscard(message)}>
              <XIcon />
            </Button>
          </div>
        </li>
      ))}
    </ul>
  );
}
