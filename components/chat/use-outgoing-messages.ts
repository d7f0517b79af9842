"use client";

import { useCallback, useEffect, useState } from "react";
import type { Item, Waiting } from "@/lib/events/entities";
import { apiFetch, errorMessage } from "@/components/shared/api-client";
import { readDraft, writeDraft } from "@/components/shared/drafts";
import { SEND_TIMEOUT_MS, type OutgoingMessage } from "./outgoing-messages";

/** The messages this tab is sending to a conversation, from "Sending…" until they show or fail. */
export function useOutgoingMessages(id: string, draftKey: string, items: Item[], waiting: Waiting[]) {
  const [outgoing, setOutgoing] = useState<OutgoingMessage[]>([]);
  /** A failed send's text goes back into the stored draft (when that is empty), so a reload never loses it. */
  const restoreDraft = useCallback((text: string) => {
    if (readDraft(draftKey).trim() === "") writeDraft(draftKey, text);
  }, [draftKey]);
  const forgetRestoredDraft = useCallback((text: string) => {
    if (readDraft(draftKey) === text) writeDraft(draftKey, "");
  }, [draftKey]);

  const deliver = useCallback(
    (message: OutgoingMessage) => {
      const key = message.requestKey;
      const update = (change: (candidate: OutgoingMessage) => OutgoingMessage) =>
        setOutgoing((current) => current.map((candidate) => (candidate.requestKey === key ? change(candidate) : candidate)));
      setOutgoing((current) => [...current.filter((candidate) => candidate.requestKey !== key), { ...message, status: "sending", error: null }]);
      const silence = window.setTimeout(() => {
        update((candidate) =>
          candidate.status === "sending" ? { ...candidate, status: "failed", error: `no answer from Atrium after ${SEND_TIMEOUT_MS / 1000} s` } : candidate,
        );
        restoreDraft(message.text);
      }, SEND_TIMEOUT_MS);
      apiFetch<{ message: { id: string } }>(`/api/conversations/${id}/messages`, {
        method: "POST",
        body: {
          text: message.text,
          mode: message.mode,
          requestKey: key,
          ...(message.attachments?.length ? { attachments: message.attachments.map((entry) => entry.attachment!.id) } : {}),
        },
      }).then(
        (body) => {
          window.clearTimeout(silence);
          update((candidate) => ({ ...candidate, status: "sent", error: null, messageId: body.message.id }));
          forgetRestoredDraft(message.text);
          // The row gives way to the message itself; this only clears one whose message never shows here.
          window.setTimeout(() => setOutgoing((current) => current.filter((candidate) => candidate.requestKey !== key || candidate.status !== "sent")), 5_000);
        },
        (error: unknown) => {
          window.clearTimeout(silence);
          update((candidate) => ({ ...candidate, status: "failed", error: errorMessage(error) }));
          restoreDraft(message.text);
        },
      );
    },
    [id, restoreDraft, forgetRestoredDraft],
  );

  // A sent row leaves as soon as its message is in the history or the waiting list.
  useEffect(() => {
    if (!outgoing.some((message) => message.status === "sent")) return;
    const shown = new Set([...items.map((item) => item.id), ...waiting.map((waiting) => waiting.id)]);
    setOutgoing((current) => {
      const next = current.filter((message) => message.status !== "sent" || !message.messageId || !shown.has(message.messageId));
      return next.length === current.length ? current : next;
    });
  }, [outgoing, items, waiting]);


  /** Edit or Discard: the row goes; Discard also takes back the draft it restored. */
  const forget = useCallback(
    (message: OutgoingMessage, discardDraft: boolean) => {
      setOutgoing((current) => current.filter((candidate) => candidate.requestKey !== message.requestKey));
      if (discardDraft) forgetRestoredDraft(message.text);
    },
    [forgetRestoredDraft],
  );

  return { outgoing, deliver, forget };
}
