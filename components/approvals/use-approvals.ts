"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import type { Approval, Conversation } from "@/lib/events/entities";
import { apiFetch } from "@/components/shared/api-client";
import { useLiveList } from "@/components/live/use-live";

/** A list answer that left before a decision may still call it pending: a decision is final, so the decided copy wins. */
export function mergeRefetched(current: Approval[], fetched: Approval[]): Approval[] {
  const decided = new Map(current.filter((approval) => approval.status !== "pending").map((approval) => [approval.id, approval]));
  return fetched.map((approval) => (approval.status === "pending" ? (decided.get(approval.id) ?? approval) : approval));
}

/**
 * Every conversation's approvals, live, with each conversation's title and machine. An approval of a
 * conversation this page has not heard of (created before the page opened, asking after) gets its title read.
 */
export function useApprovals(initial: { approvals: Approval[]; titles: Record<string, string>; machineOf: Record<string, string> }) {
  const [approvals, setApprovals] = useState(initial.approvals);
  const [titles, setTitles] = useState(initial.titles);
  const [machineOf, setMachineOf] = useState(initial.machineOf);
  const timer = useRef<number | null>(null);
  const asked = useRef(new Set<string>());

  // Refetched rather than patched: an interrupted turn's approvals are denied without an event of their own.
  const refresh = useCallback(() => {
    if (timer.current !== null) window.clearTimeout(timer.current);
    timer.current = window.setTimeout(() => {
      apiFetch<{ approvals: Approval[] }>("/api/approvals").then(
        (body) => setApprovals((current) => mergeRefetched(current, body.approvals)),
        () => undefined,
      );
    }, 100);
  }, []);

  useLiveList((event) => {
    if (event.type === "conversation.created" || event.type === "conversation.updated") {
      setTitles((current) => (current[event.conversationId] === event.conversation.title ? current : { ...current, [event.conversationId]: event.conversation.title }));
      const machine = event.conversation.machine;
      if (machine) setMachineOf((current) => (current[event.conversationId] === machine ? current : { ...current, [event.conversationId]: machine }));
    }
    if (event.type === "approval.requested" || event.type === "approval.decided") {
      const approval = event.approval;
      setApprovals((current) => [...current.filter((candidate) => candidate.id !== approval.id), approval]);
    }
    refresh();
  }, refresh);

  useEffect(() => {
    for (const { conversationId } of approvals) {
      if (titles[conversationId] !== undefined || asked.current.has(conversationId)) continue;
      asked.current.add(conversationId);
      apiFetch<{ conversation: Conversation }>(`/api/conversations/${conversationId}`).then(
        ({ conversation }) => {
          setTitles((current) => ({ ...current, [conversationId]: conversation.title }));
          setMachineOf((current) => ({ ...current, [conversationId]: conversation.machine }));
        },
        () => setTitles((current) => ({ ...current, [conversationId]: "Deleted conversation" })),
      );
    }
  }, [approvals, titles]);

  return { approvals, titles, machineOf };
}
