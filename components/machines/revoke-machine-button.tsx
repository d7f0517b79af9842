"use client";

import { Trash2Icon } from "lucide-react";
import { useState } from "react";
import type { Machine } from "@/lib/machines/machine-schema";
import {
  AlertDialog,
  AlertDialogAction,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogFooter,
  AlertDialogHeader,
  AlertDialogTitle,
  AlertDialogTrigger,
} from "@/components/ui/alert-dialog";
import { Button } from "@/components/ui/button";
import { apiFetch, errorMessage } from "@/components/shared/api-client";

/** Settings → Machines: revoke a machine (DELETE /api/machines/:id) after asking; its link is cut at once. */
export function RevokeMachineButton({ machine, onRevoked }: { machine: Machine; onRevoked: () => void }) {
  const [open, setOpen] = useState(false);
  const [revoking, setRevoking] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const revoke = async () => {
    setRevoking(true);
    setFailure(null);
    try {
      await apiFetch(`/api/machines/${machine.id}`, { method: "DELETE" });
      setOpen(false);
      onRevoked();
    } catch (error) {
      setFailure(errorMessage(error));
    } finally {
      setRevoking(false);
    }
  };
  return (
    <AlertDialog open={open} onOpenChange={setOpen}>
      <AlertDialogTrigger asChild>
        <Button type="button" variant="ghost" size="xs" className="ml-auto" aria-label={`Revoke ${machine.name}`}>
          <Trash2Icon />
          Revoke
        </Button>
      </AlertDialogTrigger>
      <AlertDialogContent>
        <AlertDialogHeader>
          <AlertDialogTitle>Revoke {machine.name}?</AlertDialogTitle>
          <AlertDialogDescription>
            Its token stops working and its link is cut at once: a call running there ends with its effects unknown. To link this computer again, add it
            anew. Its conversations stay, and can be moved to another machine.
          </AlertDialogDescription>
          {failure && <p className="text-sm text-destructive">Could not revoke: {failure}</p>}
        </AlertDialogHeader>
        <AlertDialogFooter>
          <AlertDialogCancel disabled={revoking}>Cancel</AlertDialogCancel>
          <AlertDialogAction
            className="bg-destructive text-white hover:bg-destructive/90"
            disabled={revoking}
            onClick={(event) => {
              event.preventDefault();
              void revoke();
            }}
          >
            {revoking ? "Revoking…" : "Revoke"}
          </AlertDialogAction>
        </AlertDialogFooter>
      </AlertDialogContent>
    </AlertDialog>
  );
}
