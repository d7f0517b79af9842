"use client";

import { Undo2Icon } from "lucide-react";
import { useState } from "react";
import { toast } from "sonner";
import {
  AlertDialog,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogFooter,
  AlertDialogHeader,
  AlertDialogTitle,
  AlertDialogTrigger,
} from "@/components/ui/alert-dialog";
import { Button } from "@/components/ui/button";
import { ApiError, apiFetch, errorMessage } from "@/components/shared/api-client";

/**
 * "Revert to before this turn" for one file of a turn's changes: asks first, and when the file
 * changed outside Atrium since the agent's last change, says so and asks again before overwriting.
 */
export function RevertFileButton({ turnId, path }: { turnId: string; path: string }) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [outside, setOutside] = useState(false);
  const [reverted, setReverted] = useState(false);

  const revert = async () => {
    setBusy(true);
    try {
      const body = await apiFetch<{ restored: string[] }>(`/api/turns/${turnId}/revert`, { method: "POST", body: { path, force: outside } });
      setOpen(false);
      setReverted(true);
      toast.success(body.restored.length > 0 ? `Reverted ${path} to before this turn` : `${path} already was as before this turn`);
    } catch (error) {
      if (error instanceof ApiError && error.code === "files_changed_outside") setOutside(true);
      else {
        setOpen(false);
        toast.error(`Could not revert ${path}: ${errorMessage(error)}`);
      }
    } finally {
      setBusy(false);
    }
  };

  if (reverted) return <span className="text-muted-foreground">reverted</span>;
  return (
    <AlertDialog
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (!next) setOutside(false);
      }}
    >
      <AlertDialogTrigger asChild>
        <Button type="button" variant="ghost" size="xs" className="h-6 gap-1 px-1.5 text-xs" aria-label={`Revert ${path} to before this turn`} title="Revert to before this turn">
          <Undo2Icon className="size-3.5" />
          <span className="max-sm:sr-only">Revert</span>
        </Button>
      </AlertDialogTrigger>
      <AlertDialogContent>
        <AlertDialogHeader>
          <AlertDialogTitle>Revert {path}?</AlertDialogTitle>
          <AlertDialogDescription>
            The file goes back to how it was before this turn, on the conversation&apos;s machine. The turn&apos;s other files and the conversation stay as they are.
          </AlertDialogDescription>
        </AlertDialogHeader>
        {outside && (
          <p role="alert" className="rounded-md border border-warning/50 bg-warning/10 px-3 py-2 text-sm">
            {path} changed outside Atrium after the agent&apos;s last checkpoint; reverting overwrites those edits.
          </p>
        )}
        <AlertDialogFooter>
          <AlertDialogCancel disabled={busy}>Cancel</AlertDialogCancel>
          <Button type="button" disabled={busy} onClick={() => void revert()}>
            {outside ? "Revert anyway" : "Revert"}
          </Button>
        </AlertDialogFooter>
      </AlertDialogContent>
    </AlertDialog>
  );
}
