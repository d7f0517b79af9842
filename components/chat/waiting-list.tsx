"use client";

import { CornerDownRightIcon, ListPlusIcon, PencilIcon, XIcon, ZapIcon } from "lucide-react";
import { useState } from "react";
import { toast } from "sonner";
import type { Waiting } from "@/lib/events/entities";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Textarea } from "@/components/ui/textarea";
import { Tooltip, TooltipContent, TooltipTrigger } from "@/components/ui/tooltip";
import { apiFetch, errorMessage, newRequestKey } from "@/components/shared/api-client";

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
            onWithdraw={() => void run(() => apiFetch(base, { method: "DELETE" }), "Could not withdraw").then((done) => done && offerUndo(conversationId, entry))}
          />
        </div>
      )}
    </li>
  );
}

/**
 * Withdrawing takes the message out at once (it must not start meanwhile); Undo sends its text again
 * the same way (a jump comes back queued, so Undo never interrupts), at the end of the list.
 */
function offerUndo(conversationId: string, entry: Waiting) {
  if (entry.origin !== "owner") return;
  const preview = entry.text.length > 40 ? `${entry.text.slice(0, 40)}…` : entry.text;
  toast(`Withdrawn: “${preview}”`, {
    action: {
      label: "Undo",
      onClick: () => {
        apiFetch(`/api/conversations/${conversationId}/messages`, {
          method: "POST",
          body: { text: entry.text, mode: entry.mode === "jump" ? "queue" : entry.mode, session: entry.sessionId, requestKey: newRequestKey() },
        }).catch((error: unknown) => toast.error(`Could not put it back: ${errorMessage(error)}`));
      },
    },
  });
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
  onWithdraw: () => void;
}

/** Each action says what it does in words (beside its icon from phone width up; as a tooltip always). */
function RowAction({ label, title, icon, busy, onClick }: { label: string; title: string; icon: React.ReactNode; busy: boolean; onClick: () => void }) {
  return (
    <Tooltip>
      <TooltipTrigger asChild>
        <Button variant="ghost" size="xs" className="max-sm:size-7" aria-label={label} disabled={busy} onClick={onClick}>
          {icon}
          <span className="max-sm:sr-only">{label}</span>
        </Button>
      </TooltipTrigger>
      <TooltipContent>{title}</TooltipContent>
    </Tooltip>
  );
}

function WaitingRowActions({ entry, busy, onEdit, onRequest, onWithdraw }: WaitingRowActionsProps) {
  return (
    <div className="flex shrink-0 flex-wrap items-center justify-end">
      {entry.origin === "owner" && <RowAction label="Edit" title="Edit the text before it is taken" icon={<PencilIcon />} busy={busy} onClick={onEdit} />}
      {MODE_ACTIONS.filter((action) => action.mode !== entry.mode).map((action) => (
        <RowAction
          key={action.mode}
          label={action.label}
          title={action.title}
          icon={action.icon}
          busy={busy}
          onClick={() => onRequest({ method: "PATCH", body: { mode: action.mode } }, action.failure)}
        />
      ))}
      <RowAction label="Withdraw" title="Take it out of the list (Undo puts it back)" icon={<XIcon />} busy={busy} onClick={onWithdraw} />
    </div>
  );
}
