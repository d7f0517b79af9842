"use client";

import { useEffect, useRef, useState } from "react";
import type { Item } from "@/lib/events/entities";
import {
  AlertDialog,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogFooter,
  AlertDialogHeader,
  AlertDialogTitle,
} from "@/components/ui/alert-dialog";
import { Button } from "@/components/ui/button";
import { Checkbox } from "@/components/ui/checkbox";
import { Label } from "@/components/ui/label";
import { apiFetch, errorMessage } from "@/components/shared/api-client";

export interface RestartChoice {
  restoreFiles: boolean;
  force: boolean;
}

interface RestartDialogProps {
  conversationId: string;
  /** The owner's message to restart from; null when closed. */
  item: Item | null;
  busy: boolean;
  /** Files that changed outside Atrium, from a refused restore: confirming again forces it. */
  outside: string[] | null;
  onCancel: () => void;
  onConfirm: (choice: RestartChoice) => void;
}

/** "Restart from here": lists the files changed since that message and offers to restore them too. */
export function RestartDialog({ conversationId, item, busy, outside, onCancel, onConfirm }: RestartDialogProps) {
  const [files, setFiles] = useState<string[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [restoreFiles, setRestoreFiles] = useState(false);
  const itemId = item?.id ?? null;
  // Opened from a message's button rather than a Radix trigger, so closing would drop focus to <body>: it goes back to that button.
  const lastItemId = useRef<string | null>(null);
  if (itemId) lastItemId.current = itemId;

  useEffect(() => {
    setFiles(null);
    setProblem(null);
    setRestoreFiles(false);
    if (!itemId) return;
    let current = true;
    apiFetch<{ files: string[] }>(`/api/conversations/${conversationId}/rewind?itemId=${itemId}`).then(
      (body) => current && setFiles(body.files),
      (error: unknown) => current && setProblem(errorMessage(error)),
    );
    return () => {
      current = false;
    };
  }, [conversationId, itemId]);

  return (
    <AlertDialog open={item !== null} onOpenChange={(open) => !open && onCancel()}>
      <AlertDialogContent
        onCloseAutoFocus={(event) => {
          const button = document.querySelector<HTMLElement>(`[data-restart-item="${lastItemId.current}"]`);
          if (!button) return;
          event.preventDefault();
          button.focus();
        }}
      >
        <AlertDialogHeader>
          <AlertDialogTitle>Restart from here</AlertDialogTitle>
          <AlertDialogDescription>
            A new conversation starts from just before this message, with its text in the composer. This conversation stays as it is.
          </AlertDialogDescription>
        </AlertDialogHeader>
        {problem && <p className="text-sm text-destructive">Could not list the changed files: {problem}</p>}
        {files === null && !problem && <p className="text-sm text-muted-foreground">Looking for files changed since this message…</p>}
        {files !== null && files.length === 0 && <p className="text-sm text-muted-foreground">No files were changed since this message.</p>}
        {files !== null && files.length > 0 && (
          <div className="grid gap-2">
            <p className="text-sm">
              {files.length} {files.length === 1 ? "file was" : "files were"} changed since this message:
            </p>
            <ul aria-label="Files changed since this message" className="max-h-40 overflow-auto rounded-md border bg-muted/30 px-3 py-2 font-mono text-xs">
              {files.map((file) => (
                <li key={file}>{file}</li>
              ))}
            </ul>
            <div className="flex items-start gap-2">
              <Checkbox id="restore-files" checked={restoreFiles} onCheckedChange={(checked) => setRestoreFiles(checked === true)} />
              <Label htmlFor="restore-files" className="text-sm leading-tight font-normal">
                Also restore files to how they were before this message
              </Label>
            </div>
          </div>
        )}
        {outside && (
          <div role="alert" className="grid gap-1 rounded-md border border-warning/50 bg-warning/10 px-3 py-2 text-sm">
            <p>These files changed outside Atrium after the agent&apos;s last checkpoint; restoring overwrites them:</p>
            <ul className="font-mono text-xs">
              {outside.map((file) => (
                <li key={file}>{file}</li>
              ))}
            </ul>
          </div>
        )}
        <AlertDialogFooter>
          <AlertDialogCancel disabled={busy}>Cancel</AlertDialogCancel>
          <Button type="button" disabled={busy} onClick={() => onConfirm({ restoreFiles, force: outside !== null && restoreFiles })}>
            {outside && restoreFiles ? "Restore anyway and restart" : "Restart"}
          </Button>
        </AlertDialogFooter>
      </AlertDialogContent>
    </AlertDialog>
  );
}
