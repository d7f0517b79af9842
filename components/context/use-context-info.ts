"use client";

import { useCallback, useEffect, useState } from "react";
import type { ContextInfo } from "@/lib/events/entities";
import { apiFetch } from "@/components/shared/api-client";
import { useLiveConversation } from "@/components/live/use-live";
import { compactNow } from "./compact-now";

/** The root session's context figures, live through `context.updated`, and "Compact now". */
export function useContextInfo(conversationId: string, sessionId: string) {
  const [context, setContext] = useState<ContextInfo | null>(null);
  const [compacting, setCompacting] = useState(false);
  const [serverCompacting, setServerCompacting] = useState(false);

  const load = useCallback(() => {
    apiFetch<{ context: ContextInfo }>(`/api/conversations/${conversationId}/context`).then(
      (body) => setContext(body.context),
      () => undefined,
    );
  }, [conversationId]);

  useEffect(() => load(), [load]);

  useLiveConversation(conversationId, (event) => {
    if (event.type === "snapshot") return load();
    const from = (event as { sessionId?: string }).sessionId;
    if (from !== undefined && from !== sessionId) return;
    if (event.type === "context.updated") setContext(event.context);
    else if (event.type === "compaction.started") setServerCompacting(true);
    else if (event.type === "compaction.completed") {
      setServerCompacting(false);
      load();
    }
  });

  const compact = async () => {
    setCompacting(true);
    await compactNow(conversationId);
    setCompacting(false);
    load();
  };

  return { context, busy: compacting || serverCompacting, compact };
}
