"use client";

import { ScrollTextIcon } from "lucide-react";
import { useParams } from "next/navigation";
import { useEffect, useState } from "react";
import type { Item, Session } from "@/lib/events/entities";
import { apiFetch } from "@/components/shared/api-client";
import { Markdown } from "@/components/chat/markdown";

const sessionsByConversation = new Map<string, Promise<Session[]>>();

function sessionsOf(conversationId: string, refresh: boolean): Promise<Session[]> {
  let pending = sessionsByConversation.get(conversationId);
  if (!pending || refresh) {
    pending = apiFetch<{ sessions: Session[] }>(`/api/conversations/${conversationId}/sessions`).then(
      (body) => body.sessions,
      () => [],
    );
    sessionsByConversation.set(conversationId, pending);
  }
  return pending;
}

/** A subagent's report to its parent (DESIGN §5), labelled with the subagent that wrote it. */
export function SubagentReport({ item }: { item: Item }) {
  const params = useParams<{ id?: string }>();
  const conversationId = params?.id;
  const [session, setSession] = useState<Session | null>(null);

  useEffect(() => {
    if (!conversationId || !item.fromSessionId) return;
    let cancelled = false;
    void sessionsOf(conversationId, false).then(async (sessions) => {
      let found = sessions.find((candidate) => candidate.id === item.fromSessionId);
      if (!found) found = (await sessionsOf(conversationId, true)).find((candidate) => candidate.id === item.fromSessionId);
      if (!cancelled && found) setSession(found);
    });
    return () => {
      cancelled = true;
    };
  }, [conversationId, item.fromSessionId]);

  const name = session ? session.agent : "a subagent";
  return (
    <section aria-label={`Report from ${name}`} data-item-kind="subagent_report" className="rounded-lg border border-l-4 border-l-info bg-card px-3 py-2 text-sm">
      <p className="mb-1 flex items-center gap-1.5 text-xs font-medium text-muted-foreground">
        <ScrollTextIcon className="size-3.5" />
        Report from {session ? <span className="text-foreground">subagent {session.agent}</span> : "a subagent"}
        {session && <span className="font-normal">· {session.model}</span>}
      </p>
      <Markdown text={item.text ?? ""} />
    </section>
  );
}
