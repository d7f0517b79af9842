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

/**
 * Messages sent while a turn ran and not yet taken: edit, withdraw, steer now or jump. With
 * nothing running they are held (after the owner's interrupt, DESIGN §3): the header says how to go on.
 */
export function WaitingList({ conversationId, waiting, held }: { conversationId: string; waiting: Waiting[]; held: boolean }) {
  if (waiting.length === 0) return null;
  return (
    <section aria-label="Waiting messages" className="mb-2 rounded-xl border bg-muted/40 p-1.5">
      <h2 className="px-2 pt-0.5 pb-1 text-xs font-medium text-muted-foreground">
        Waiting ({waiting.length}){held && " · paused after your interrupt: Jump now runs one, or send a message"}
      </h2>
      <ul className="grid max-h-[30vh] gap-1 overflow-y-auto">
        {waiting.map((entry) => (
          <WaitingRow key={entry.id} conversationId={conversationId} entry={entry} />
        ))}
      </ul>
    </section>
  );
}

/** Each request the row makes disables its buttons until it answers; a failure shows as a toast. */
function useWaitingRequest() {
  const [busy, setBusy] = useState(false);
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
  return { busy, run };
}

function WaitingRow({ conversationId, entry }: { conversationId: string; entry: Waiting }) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(entry.text);
  const { busy, run } = useWaitingRequest();
  const base = `/api/conversations/${conversationId}/queue/${entry.id}`;

  const save = async () => {
    if (draft.trim() === "") return;
    const saved = await run(() => apiFetch(base, { method: "PATCH", body: { text: draft } }), "Could not save the edit");
    if (saved) setEditing(false);
  };
  const cancel = () => {
    setEditing(false);
    setDraft(entry.text);
  };

  return (
    <li className="rounded-lg bg-background px-2.5 py-2 shadow-xs" data-mode={entry.mode}>
      {editing ? (
        <WaitingEditForm draft={draft} onDraftChange={setDraft} busy={busy} onSave={() => void save()} onCancel={cancel} />
      ) : (
        <div className="flex items-start gap-2">
          <Badge variant={entry.mode === "jump" ? "warning" : entry.mode === "steer" ? "info" : "secondary"} className="mt-0.5">
            {MODE_LABEL[entry.mode]}
          </Badge>
          <p className="line-clamp-3 min-w-0 flex-1 text-sm break-words whitespace-pre-wrap">{entry.text}</p>
          <WaitingRowActions
            entry={entry}
            busy={busy}
            onEdit={() => {
              setDraft(entry.text);
              setEditing(true);
            }}
            onRequest={(init, failure) => void run(() => apiFetch(base, init), failure)}
          />
        </div>
      )}
    </li>
  );
}

interface WaitingEditFormProps {
  draft: string;
  onDraftChange: (text: string) => void;
  busy: boolean;
  onSave: () => void;
  onCancel: () => void;
}

function WaitingEditForm({ draft, onDraftChange, busy, onSave, onCancel }: WaitingEditFormProps) {
  return (
    <form
      className="grid gap-2"
      onSubmit={(event) => {
        event.preventDefault();
        onSave();
      }}
    >
      <Textarea
        value={draft}
        onChange={(event) => onDraftChange(event.target.value)}
        aria-label="Edit waiting message"
        className="min-h-12 text-sm"
        autoFocus
        onKeyDown={(event) => {
          if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
            event.preventDefault();
            onSave();
          }
          if (event.key === "Escape") {
            event.preventDefault();
            event.stopPropagation();
            onCancel();
          }
        }}
      />
      <div className="flex justify-end gap-2">
        <Button type="button" variant="ghost" size="xs" onClick={onCancel}>
          Cancel
        </Button>
        <Button type="submit" size="xs" disabled={busy || draft.trim() === ""}>
          Save
        </Button>
      </div>
    </form>
  );
}

/** Hand the message over another way: each button shows unless the message already waits that way. */
const MODE_ACTIONS: Array<{ mode: Waiting["mode"]; label: string; title: string; failure: string; icon: React.ReactNode }> = [
  { mode: "steer", label: "Steer now", title: "Steer now: hand it to the running turn", failure: "Could not steer", icon: <CornerDownRightIcon /> },
  { mode: "jump", label: "Jump now", title: "Jump: interrupt the running turn and handle this next", failure: "Could not jump", icon: <ZapIcon /> },
  { mode: "queue", label: "Queue instead", title: "Queue: wait for the next turn instead", failure: "Could not queue", icon: <ListPlusIcon /> },
];

interface WaitingRowActionsProps {
  entry: Waiting;
  busy: boolean;
  onEdit: () => void;
  onRequest: (init: { method: string; body?: unknown }, failure: string) => void;
}

function WaitingRowActions({ entry, busy, onEdit, onRequest }: WaitingRowActionsProps) {
  return (
    <div className="flex shrink-0 items-center">
      {entry.origin === "owner" && (
        <Button variant="ghost" size="icon-xs" aria-label="Edit" title="Edit" disabled={busy} onClick={onEdit}>
          <PencilIcon />
        </Button>
      )}
      {MODE_ACTIONS.filter((action) => action.mode !== entry.mode).map((action) => (
        <Button
          key={action.mode}
          variant="ghost"
          size="icon-xs"
          aria-label={action.label}
          title={action.title}
          disabled={busy}
          onClick={() => onRequest({ method: "PATCH", body: { mode: action.mode } }, action.failure)}
        >
          {action.icon}
        </Button>
      ))}
      <Button variant="ghost" size="icon-xs" aria-label="Withdraw" title="Withdraw" disabled={busy} onClick={() => onRequest({ method: "DELETE" }, "Could not withdraw")}>
        <XIcon />
      </Button>
    </div>
  );
}
