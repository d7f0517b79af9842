"use client";

import { CornerDownRightIcon, ListPlusIcon, PencilIcon, XIcon, ZapIcon } from "lucide-react";
import { useState } from "react";
import { toast } from "sonner";
import type { Waiting } from "@/lib/events/entities";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Textarea } from "@/components/ui/textarea";
import { apiFetch, errorMessage } from "@/components/shared/api-client";

const MODE_LABEL: Record<Waiting["mode"], string> = { steer: "steer", queue: "queued", jump: "jump" };

/** Messages sent while a turn ran and not yet taken: edit, withdraw, steer now or jump. */
export function WaitingList({ conversationId, waiting }: { conversationId: string; waiting: Waiting[] }) {
  if (waiting.length === 0) return null;
  return (
    <section aria-label="Waiting messages" className="mb-2 rounded-xl border bg-muted/40 p-1.5">
      <h2 className="px-2 pt-0.5 pb-1 text-xs font-medium text-muted-foreground">
        Waiting ({waiting.length})
      </h2>
      <ul className="grid max-h-[30vh] gap-1 overflow-y-auto">
        {waiting.map((entry) => (
          <WaitingRow key={entry.id} conversationId={conversationId} entry={entry} />
        ))}
      </ul>
    </section>
  );
}

function WaitingRow({ conversationId, entry }: { conversationId: string; entry: Waiting }) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(entry.text);
  const [busy, setBusy] = useState(false);
  const base = `/api/conversations/${conversationId}/queue/${entry.id}`;
  const owner = entry.origin === "owner";

  const run = async (action: () => Promise<unknown>, failure: string) => {
    setBusy(true);
    try {
      await action();
      return true;
    } catch (error) {
      toast.error(`${failure}: ${errorMessage(error)}`);
      return false;
    } finally {
      setBusy(false);
    }
  };

  const save = async () => {
    if (draft.trim() === "") return;
    const saved = await run(() => apiFetch(base, { method: "PATCH", body: { text: draft } }), "Could not save the edit");
    if (saved) setEditing(false);
  };

  return (
    <li className="rounded-lg bg-background px-2.5 py-2 shadow-xs" data-mode={entry.mode}>
      {editing ? (
        <form
          className="grid gap-2"
          onSubmit={(event) => {
            event.preventDefault();
            void save();
          }}
        >
          <Textarea
            value={draft}
            onChange={(event) => setDraft(event.target.value)}
            aria-label="Edit waiting message"
            className="min-h-12 text-sm"
            autoFocus
            onKeyDown={(event) => {
              if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
                event.preventDefault();
                void save();
              }
              if (event.key === "Escape") {
                event.preventDefault();
                event.stopPropagation();
                setEditing(false);
                setDraft(entry.text);
              }
            }}
          />
          <div className="flex justify-end gap-2">
            <Button type="button" variant="ghost" size="xs" onClick={() => (setEditing(false), setDraft(entry.text))}>
              Cancel
            </Button>
            <Button type="submit" size="xs" disabled={busy || draft.trim() === ""}>
              Save
            </Button>
          </div>
        </form>
      ) : (
        <div className="flex items-start gap-2">
          <Badge variant={entry.mode === "jump" ? "warning" : entry.mode === "steer" ? "info" : "secondary"} className="mt-0.5">
            {MODE_LABEL[entry.mode]}
          </Badge>
          <p className="line-clamp-3 min-w-0 flex-1 text-sm break-words whitespace-pre-wrap">{entry.text}</p>
          <div className="flex shrink-0 items-center">
            {owner && (
              <Button
                variant="ghost"
                size="icon-xs"
                aria-label="Edit"
                title="Edit"
                disabled={busy}
                onClick={() => {
                  setDraft(entry.text);
                  setEditing(true);
                }}
              >
                <PencilIcon />
              </Button>
            )}
            {entry.mode !== "steer" && (
              <Button
                variant="ghost"
                size="icon-xs"
                aria-label="Steer now"
                title="Steer now: hand it to the running turn"
                disabled={busy}
                onClick={() => run(() => apiFetch(base, { method: "PATCH", body: { mode: "steer" } }), "Could not steer")}
              >
                <CornerDownRightIcon />
              </Button>
            )}
            {entry.mode !== "jump" && (
              <Button
                variant="ghost"
                size="icon-xs"
                aria-label="Jump now"
                title="Jump: interrupt the running turn and handle this next"
                disabled={busy}
                onClick={() => run(() => apiFetch(base, { method: "PATCH", body: { mode: "jump" } }), "Could not jump")}
              >
                <ZapIcon />
              </Button>
            )}
            {entry.mode !== "queue" && (
              <Button
                variant="ghost"
                size="icon-xs"
                aria-label="Queue instead"
                title="Queue: wait for the next turn instead"
                disabled={busy}
                onClick={() => run(() => apiFetch(base, { method: "PATCH", body: { mode: "queue" } }), "Could not queue")}
              >
                <ListPlusIcon />
              </Button>
            )}
            <Button
              variant="ghost"
              size="icon-xs"
              aria-label="Withdraw"
              title="Withdraw"
              disabled={busy}
              onClick={() => run(() => apiFetch(base, { method: "DELETE" }), "Could not withdraw")}
            >
              <XIcon />
            </Button>
          </div>
        </div>
      )}
    </li>
  );
}
