"use client";

import { BotIcon } from "lucide-react";
import { useEffect, useState } from "react";
import type { Approval, Session } from "@/lib/events/entities";
import { apiFetch } from "@/components/shared/api-client";

/** The agent of a session, read from the conversation's sessions (DESIGN §6: a subagent's approval names its agent). */
function useSessionAgent(conversationId: string, sessionId: string): string | null {
  const [agent, setAgent] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    apiFetch<{ sessions: Session[] }>(`/api/conversations/${conversationId}/sessions`).then(
      (body) => current && setAgent(body.sessions.find((session) => session.id === sessionId)?.agent ?? null),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [conversationId, sessionId]);
  return agent;
}

/** Above an approval asked by a subagent in the main timeline: which agent asks. */
export function SubagentApprovalLabel({ approval }: { approval: Approval }) {
  const agent = useSessionAgent(approval.conversationId, approval.sessionId);
  return (
    <p className="flex items-center gap-1.5 text-xs text-muted-foreground" data-subagent-approval={approval.sessionId}>
      <BotIcon className="size-3.5" aria-hidden />
      From subagent {agent ? <span className="font-medium text-foreground">{agent}</span> : "…"}: it waits for this approval (also in the Agents panel)
    </p>
  );
}
