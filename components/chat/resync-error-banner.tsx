"use client";

import { AlertTriangleIcon, Loader2Icon, RotateCwIcon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { useConversationContext } from "./conversation-provider";

/** A resync that failed: what the page shows may be missing what happened while it was not listening. */
export function ResyncErrorBanner() {
  const { failure, retrying, retry } = useConversationContext().resync;
  if (!failure) return null;
  return (
    <div role="alert" className="border-b border-destructive/30 bg-destructive/8 px-4 py-2 text-sm">
      <div className="mx-auto flex max-w-3xl items-center gap-2">
        <AlertTriangleIcon className="size-4 shrink-0 text-destructive" />
        <span className="min-w-0 flex-1">
          <span className="font-medium">Could not bring the conversation up to date.</span>{" "}
          <span className="break-words text-muted-foreground">{failure.message}</span>
        </span>
        <Button size="xs" variant="outline" disabled={retrying} onClick={() => void retry()}>
          {retrying ? <Loader2Icon className="animate-spin" /> : <RotateCwIcon />}
          Retry
        </Button>
      </div>
    </div>
  );
}
