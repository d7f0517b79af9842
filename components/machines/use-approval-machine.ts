"use client";

import { useEffect, useState } from "react";
import type { Conversation } from "@/lib/events/entities";
import type { Machine } from "@/lib/machines/machine-schema";
import { apiFetch } from "@/components/shared/api-client";

/** The name of the machine an approval's call would run on (DESIGN §10b: approvals show it); null until known. */
export function useApprovalMachine(conversationId: string): string | null {
  const [name, setName] = useState<string | null>(null);
  useEffect(() => {
    let cancelled = false;
    void Promise.all([apiFetch<{ conversation: Conversation }>(`/api/conversations/${conversationId}`), apiFetch<{ machines: Machine[] }>("/api/machines")]).then(
      ([{ conversation }, { machines }]) => {
        if (!cancelled) setName(machines.find((machine) => machine.id === conversation.machine)?.name ?? conversation.machine);
      },
      () => undefined,
    );
    return () => {
      cancelled = true;
    };
  }, [conversationId]);
  return name;
}
