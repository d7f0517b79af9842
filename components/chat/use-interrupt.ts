"use client";

import { useCallback, useEffect, useState } from "react";
import { toast } from "sonner";
import { apiFetch, errorMessage } from "@/components/shared/api-client";

/** Interrupts the conversation's running turn, from the composer's button or Esc anywhere on the page while it runs. */
export function useInterrupt(conversationId: string, busy: boolean) {
  const [interrupting, setInterrupting] = useState(false);

  const interrupt = useCallback(async () => {
    setInterrupting(true);
    try {
      await apiFetch(`/api/conversations/${conversationId}/interrupt`, { method: "POST", body: {} });
    } catch (error) {
      toast.error(`Could not interrupt: ${errorMessage(error)}`);
    } finally {
      setInterrupting(false);
    }
  }, [conversationId]);

  // Text fields and open menus or dialogs handle their own Esc.
  useEffect(() => {
    if (!busy) return;
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== "Escape" || event.defaultPrevented) return;
      const target = event.target as HTMLElement | null;
      if (target?.closest("input, textarea, select, [contenteditable=true]")) return;
      if (document.querySelector("[role=dialog], [role=alertdialog], [role=menu], [role=listbox]")) return;
      void interrupt();
    };
    window.addEventListener("keydown", onKeyDown, true);
    return () => window.removeEventListener("keydown", onKeyDown, true);
  }, [busy, interrupt]);

  return { interrupting, interrupt };
}
