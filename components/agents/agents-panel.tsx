"use client";

import { BotIcon, Loader2Icon, SendIcon, SquareIcon } from "lucide-react";
import { useCallback, useEffect, useMemo, useReducer, useState } from "react";
import { toast } from "sonner";
import type { Conversation, Item, Session, Turn } from "@/lib/events/entities";
import type { ConversationEvent } from "@/lib/events/events";
import { Button } from "@/components/ui/button";
import { Sheet, SheetContent, SheetDescription, SheetTitle, SheetTrigger } from "@/components/ui/sheet";
import { Textarea } from "@/components/ui/textarea";
import { apiFetch, errorMessage, newRequestKey } from "@/components/shared/api-client";
import { StatusDot } from "@/components/sidebar/status-dot";
import { useLiveConversation } from "@/components/live/use-live";
import { conversationReducer, initialState, openTurn as findOpenTurn } from "@/components/chat/conversation-state";
import { History } from "@/components/chat/history";

const TREE_EVENTS = ["session.created", "turn.started", "turn.ended", "turn.updated", "conversation.updated", "snapshot"] as const;

/** The Agents tab (DESIGN §5): the live tree of the conversation's sessions; a subagent's history and live turn. */
export function AgentsButton({ conversation }: { conversation: Conversation }) {
  const [open, setOpen] = useState(false);
  return (
    <Sheet open={open} onOpenChange={setOpen}>
      <SheetTrigger asChild>
        <Button variant="ghost" size="icon-sm" aria-label="Agents" title="Agents">
          <BotIcon />
        </Button>
      </SheetTrigger>
      <SheetContent side="right" className="flex w-full flex-col gap-0 p-0 sm:max-w-xl">
        <div className="border-b px-4 py-3">
          <SheetTitle>Agents</SheetTitle>
          <SheetDescription>The agent and the subagents it started in this conversation.</SheetDescription>
        </div>
        {open && <AgentsPanel conversation={conversation} />}
      </SheetContent>
    </Sheet>
  );
}

export function AgentsPanel({ conversation }: { conversation: Conversation }) {
  const [sessions, setSessions] = useState<Session[]>([]);
  const [selected, setSelected] = useState<string | null>(null);
  const id = conversation.id;

  const load = useCallback(() => {
    apiFetch<{ sessions: Session[] }>(`/api/conversations/${id}/sessions`).then(
      (body) => setSessions(body.sessions),
      () => undefined,
    );
  }, [id]);
  useEffect(() => load(), [load]);

  useLiveConversation(id, (event) => {
    if (!(TREE_EVENTS as readonly string[]).includes(event.type)) return;
    if (event.type === "session.created") {
      setSessions((current) => (current.some((session) => session.id === event.session.id) ? current : [...current, event.session]));
    }
    load();
  });

  const ordered = useMemo(() => treeOrder(sessions), [sessions]);
  const current = sessions.find((session) => session.id === selected) ?? null;

  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <ul role="listbox" aria-label="Sessions" className="grid max-h-56 shrink-0 gap-0.5 overflow-y-auto border-b p-2">
        {ordered.length === 0 && <li className="px-2 py-1 text-sm text-muted-foreground">Loading…</li>}
        {ordered.map((session) => {
          const isRoot = session.parentSessionId === null;
          return (
            <li
              key={session.id}
              role="option"
              aria-selected={session.id === selected}
              tabIndex={0}
              aria-label={`${isRoot ? "Main agent" : "Subagent"} ${session.agent}, ${session.model}, ${session.status}`}
              data-session-id={session.id}
              onClick={() => setSelected(isRoot ? null : session.id)}
              onKeyDown={(event) => {
                if (event.key === "Enter" || event.key === " ") {
                  event.preventDefault();
                  setSelected(isRoot ? null : session.id);
                }
              }}
              style={{ paddingLeft: `${0.5 + session.depth * 1.25}rem` }}
              className="flex cursor-pointer items-center gap-2 rounded-md py-1.5 pr-2 text-sm hover:bg-accent aria-selected:bg-accent"
            >
              <StatusDot status={session.status} />
              <span className="font-medium">{session.agent}</span>
              <span className="truncate text-xs text-muted-foreground">{session.model}</span>
              <span className="ml-auto shrink-0 text-xs text-muted-foreground">{isRoot ? "main (the conversation)" : `subagent · ${session.status}`}</span>
            </li>
          );
        })}
      </ul>
      {current ? (
        <SessionView key={current.id} conversation={conversation} session={current} />
      ) : (
        <p className="p-4 text-sm text-muted-foreground">
          {ordered.length > 1 ? "Select a subagent to see its history and talk to it." : "No subagents yet. They appear here as the agent starts them."}
        </p>
      )}
    </div>
  );
}

function treeOrder(sessions: Session[]): Session[] {
  const children = new Map<string | null, Session[]>();
  for (const session of sessions) {
    const list = children.get(session.parentSessionId) ?? [];
    list.push(session);
    children.set(session.parentSessionId, list);
  }
  const out: Session[] = [];
  const visit = (parent: string | null) => {
    for (const session of (children.get(parent) ?? []).sort((a, b) => a.createdAt.localeCompare(b.createdAt))) {
      out.push(session);
      visit(session.id);
    }
  };
  visit(null);
  // Anything whose parent is unknown still shows.
  for (const session of sessions) if (!out.includes(session)) out.push(session);
  return out;
}

function SessionView({ conversation, session }: { conversation: Conversation; session: Session }) {
  const id = conversation.id;
  // The conversation reducer keeps one session's items: point it at this subagent.
  const [state, dispatch] = useReducer(
    conversationReducer,
    { conversation: { ...conversation, rootSessionId: session.id }, items: [], turns: [], waiting: [], approvals: [], questions: [] },
    initialState,
  );
  const [text, setText] = useState("");
  const [sending, setSending] = useState(false);
  const [interrupting, setInterrupting] = useState(false);

  const refetch = useCallback(() => {
    void Promise.all([
      apiFetch<{ items: Item[] }>(`/api/conversations/${id}/items?session=${encodeURIComponent(session.id)}&limit=500`),
      apiFetch<{ turns: Turn[] }>(`/api/conversations/${id}/turns`),
    ]).then(
      ([itemsBody, turnsBody]) => {
        dispatch({
          type: "resync",
          data: {
            conversation: { ...conversation, rootSessionId: session.id },
            items: itemsBody.items,
            turns: turnsBody.turns.filter((turn) => turn.sessionId === session.id),
            approvals: [],
            questions: [],
          },
        });
      },
      () => undefined,
    );
  }, [id, session.id, conversation]);

  useEffect(() => refetch(), [refetch]);

  useLiveConversation(
    id,
    (event: ConversationEvent) => {
      if (event.type === "conversation.updated" || event.type === "objective.updated") return;
      dispatch({ type: "event", event, receivedAt: Date.now() });
      if (event.type === "snapshot" || event.type === "turn.ended") refetch();
    },
    { session: session.id },
  );

  const openTurn = findOpenTurn(state);
  const running = openTurn !== null || session.status !== "idle";

  const send = async () => {
    const message = text.trim();
    if (!message) return;
    setSending(true);
    try {
      await apiFetch(`/api/conversations/${id}/messages`, {
        method: "POST",
        body: { text: message, mode: "auto", session: session.id, requestKey: newRequestKey() },
      });
      setText("");
    } catch (error) {
      toast.error(`Could not send to ${session.agent}: ${errorMessage(error)}`);
    } finally {
      setSending(false);
    }
  };

  const interrupt = async () => {
    setInterrupting(true);
    try {
      await apiFetch(`/api/conversations/${id}/interrupt`, { method: "POST", body: { session: session.id, requestKey: newRequestKey() } });
    } catch (error) {
      toast.error(`Could not interrupt ${session.agent}: ${errorMessage(error)}`);
    } finally {
      setInterrupting(false);
    }
  };

  return (
    <section aria-label={`Subagent ${session.agent}`} className="flex min-h-0 flex-1 flex-col">
      <div role="log" aria-label={`History of ${session.agent}`} className="min-h-0 flex-1 overflow-y-auto">
        <History
          items={state.items}
          turns={state.turns}
          approvals={state.approvals}
          questions={state.questions}
          openTurn={openTurn}
          retry={state.retry}
          forkedFrom={null}
          restartingItemId={null}
          onRestart={() => toast.info("Restart from here works on the main conversation only")}
        />
      </div>
      <form
        className="flex shrink-0 items-end gap-2 border-t p-3"
        onSubmit={(event) => {
          event.preventDefault();
          void send();
        }}
      >
        <Textarea
          aria-label={`Message to ${session.agent}`}
          placeholder={`Message ${session.agent}…`}
          value={text}
          className="max-h-40 min-h-10"
          onChange={(event) => setText(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
              event.preventDefault();
              void send();
            }
          }}
        />
        {running && (
          <Button type="button" variant="outline" size="icon" aria-label={`Interrupt ${session.agent}`} disabled={interrupting} onClick={() => void interrupt()}>
            {interrupting ? <Loader2Icon className="animate-spin" /> : <SquareIcon />}
          </Button>
        )}
        <Button type="submit" size="icon" aria-label={`Send to ${session.agent}`} disabled={sending || text.trim() === ""}>
          {sending ? <Loader2Icon className="animate-spin" /> : <SendIcon />}
        </Button>
      </form>
    </section>
  );
}
