"use client";

import { useCallback, useEffect, useState, type RefObject } from "react";
import { readDraft, writeDraft } from "@/components/shared/drafts";

/** The composer's text, kept in the stored draft as it is typed so a reload never loses it. */
export function useComposerDraft(draftKey: string, injected: { text: string; nonce: number } | null | undefined, area: RefObject<HTMLTextAreaElement | null>) {
  const [text, setText] = useState("");

  useEffect(() => setText(readDraft(draftKey)), [draftKey]);

  useEffect(() => {
    if (!injected) return;
    setText(injected.text);
    writeDraft(draftKey, injected.text);
    area.current?.focus();
  }, [injected, draftKey, area]);

  const write = useCallback(
    (value: string) => {
      setText(value);
      writeDraft(draftKey, value);
    },
    [draftKey],
  );

  /** A send that keeps its text until it succeeded: clear it then, unless it was edited meanwhile. */
  const clearIfUnchanged = (value: string) =>
    setText((current) => {
      if (current !== value) return current;
      writeDraft(draftKey, "");
      return "";
    });

  return { text, write, clearIfUnchanged };
}
