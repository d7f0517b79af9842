"use client";

import { BotIcon } from "lucide-react";
import { useCallback, useEffect, useMemo, useState } from "react";
import { toast } from "sonner";
import type { Conversation, Session } from "@/lib/events/entities";
import { Button } from "@/components/ui/button";
import { Sheet, SheetContent, SheetDescription, SheetTitle, SheetTrigger } from "@/components/ui/sheet";
import { apiFetch } from "@/components/shared/api-client";
import { StatusDot } from "@/components/sidebar/status-dot";
import { useLiveConversation } from "@/components/live/use-live";
import { History } from "@/components/chat/history";
import { SubagentComposer } from "./subagent-composer";
import { useSubagentSession } from "./use-subagent-session";

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
  const { state, openTurn } = useSubagentSession(conversation, session);
  const running = openTurn !== null || session.status !== "idle";
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
      <SubagentComposer conversationId={conversation.id} session={session} running={running} />
    </section>
  );
}
