"use client";

import { ChevronLeftIcon, ChevronRightIcon } from "lucide-react";
import Link from "next/link";
import { createContext, useContext, useEffect, useMemo, useRef, useState } from "react";
import { useLiveList } from "@/components/live/use-live";
import type { Item } from "@/lib/events/entities";
import { cn } from "@/lib/utils";
import { useConversationContext } from "./conversation-provider";
import { lineageAfter } from "./lineage-updates";

export interface Version {
  id: string;
  title: string;
}

/** From the page: this conversation's restarted messages with their versions; for a restart, the versions of the message it restarts. */
export interface Lineage {
  restarted: Record<string, Version[]>;
  siblings: Version[] | null;
}

interface LineageValue {
  conversationId: string;
  lineage: Lineage;
  /** In a restart, the message sent after it was made: the new version of the restarted one. */
  resentMessageId: string | null;
}

const LineageContext = createContext<LineageValue | null>(null);

export function LineageProvider({ lineage: initial, children }: { lineage: Lineage; children: React.ReactNode }) {
  const { id, state } = useConversationContext();
  const { conversation, items } = state;
  const [lineage, setLineage] = useState(initial);
  useEffect(() => setLineage(initial), [initial]);
  const place = useRef({ id, title: conversation.title, parentId: conversation.forkedFrom?.conversationId ?? null, restartOf: conversation.restartOf ?? null });
  place.current = { id, title: conversation.title, parentId: conversation.forkedFrom?.conversationId ?? null, restartOf: conversation.restartOf ?? null };
  // A restart made in another tab (or by the API) joins the versions at once, without a reload.
  useLiveList((event) => setLineage((current) => lineageAfter(current, place.current, event)));
  const resentMessageId = useMemo(() => {
    if (!lineage.siblings) return null;
    // Copied items keep their times; the first owner message newer than the restart itself is the resent one.
    const resent = items.find((item) => item.kind === "user_message" && item.sessionId === conversation.rootSessionId && (item.origin ?? "owner") === "owner" && item.createdAt >= conversation.createdAt);
    return resent?.id ?? null;
  }, [items, lineage.siblings, conversation.createdAt, conversation.rootSessionId]);
  const value = useMemo(() => ({ conversationId: id, lineage, resentMessageId }), [id, lineage, resentMessageId]);
  return <LineageContext.Provider value={value}>{children}</LineageContext.Provider>;
}

function useVersions(item: Item): { versions: Version[]; index: number } | null {
  const value = useContext(LineageContext);
  if (!value) return null;
  const own = value.lineage.restarted[item.id];
  if (own && own.length > 1) return { versions: own, index: 0 };
  if (value.lineage.siblings && item.id === value.resentMessageId) {
    const index = value.lineage.siblings.findIndex((version) => version.id === value.conversationId);
    return index >= 0 ? { versions: value.lineage.siblings, index } : null;
  }
  return null;
}

/** ‹ n/m › under a message that was restarted (or is a restart of one): each version is its own conversation. */
export function VersionSwitcher({ item }: { item: Item }) {
  const found = useVersions(item);
  if (!found) return null;
  const { versions, index } = found;
  const previous = versions[index - 1];
  const next = versions[index + 1];
  return (
    <nav aria-label="Versions of this message" className="flex items-center gap-0.5 text-xs text-muted-foreground tabular-nums">
      <VersionLink version={previous} label="Previous version">
        <ChevronLeftIcon className="size-3.5" />
      </VersionLink>
      <span aria-current="true">
        {index + 1}/{versions.length}
      </span>
      <VersionLink version={next} label="Next version">
        <ChevronRightIcon className="size-3.5" />
      </VersionLink>
    </nav>
  );
}

function VersionLink({ version, label, children }: { version: Version | undefined; label: string; children: React.ReactNode }) {
  const className = "inline-flex size-6 items-center justify-center rounded-md";
  if (!version) {
    return (
      <span aria-hidden className={cn(className, "opacity-40")}>
        {children}
      </span>
    );
  }
  return (
    <Link href={`/c/${version.id}`} prefetch={false} aria-label={`${label}: ${version.title}`} title={version.title} className={cn(className, "hover:bg-accent hover:text-foreground")}>
      {children}
    </Link>
  );
}
