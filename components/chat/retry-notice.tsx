"use client";

import { RefreshCwIcon } from "lucide-react";
import { useEffect, useState } from "react";
import type { RetryNotice as RetryNoticeState } from "./conversation-state";

/** "Retrying in 4 s" counting down to the next attempt the server announced. */
export function RetryNotice({ retry }: { retry: RetryNoticeState }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), 250);
    return () => window.clearInterval(timer);
  }, [retry]);
  const seconds = Math.max(0, Math.ceil((retry.until - now) / 1000));
  return (
    <div role="status" className="flex items-start gap-2 rounded-lg border border-warning/50 bg-warning/10 px-3 py-2 text-sm">
      <RefreshCwIcon className="mt-0.5 size-4 shrink-0 animate-spin text-warning-foreground [animation-duration:2s]" />
      <div className="min-w-0">
        <p className="font-medium">
          {seconds > 0 ? `Retrying in ${seconds} s` : "Retrying now…"} <span className="font-normal text-muted-foreground">(attempt {retry.attempt})</span>
        </p>
        <p className="truncate text-xs text-muted-foreground">The model call failed: {retry.message}</p>
      </div>
    </div>
  );
}
