"use client";

import { usePathname } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { Conversation } from "@/lib/events/entities";
import { Sheet, SheetContent, SheetDescription, SheetTitle } from "@/components/ui/sheet";
import { apiFetch } from "@/components/shared/api-client";
import { clearConversationDraft } from "@/components/shared/drafts";
import { useDesktopNotifications } from "@/components/notifications/use-desktop-notifications";
import { useLiveList } from "@/components/live/use-live";
import { SessionEndedNotice } from "@/components/auth/session-ended-notice";
import { SidebarContext } from "./sidebar-context";
import { SidebarPanel } from "./sidebar-panel";
import { SidebarResizeHandle } from "./sidebar-resize-handle";
import { saveSidebarPref, SIDEBAR_GROUPING_COOKIE, SIDEBAR_WIDTH_COOKIE, TIME_ZONE_COOKIE, type SidebarGrouping, type SidebarPrefs } from "./sidebar-prefs";

/** Conversations per page of the sidebar (the first page is rendered by the server). */
const SIDEBAR_LIMIT = 100;

function byRecency(a: Conversation, b: Conversation): number {
  return a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : a.id < b.id ? 1 : -1;
}

interface WorkspaceShellProps {
  initialConversations: Conversation[];
  initialPendingApprovals: number;
  prefs: SidebarPrefs;
  children: React.ReactNode;
}

/** Layout of every signed-in page: the sidebar (fixed on laptops, a sheet on phones) kept live by /api/events. */
export function WorkspaceShell({ initialConversations, initialPendingApprovals, prefs, children }: WorkspaceShellProps) {
  const [conversations, setConversations] = useState(initialConversations);
  const [hasMore, setHasMore] = useState(initialConversations.length >= SIDEBAR_LIMIT);
  const [loadingMore, setLoadingMore] = useState(false);
  const [width, setWidth] = useState(prefs.width);
  const [grouping, setGrouping] = useState<SidebarGrouping>(prefs.grouping);
  const [pendingApprovals, setPendingApprovals] = useState(initialPendingApprovals);
  const [sheetOpen, setSheetOpen] = useState(false);
  const pathname = usePathname();

  useEffect(() => {
    setConversations(initialConversations);
    setHasMore(initialConversations.length >= SIDEBAR_LIMIT);
  }, [initialConversations]);
  // The server groups by date in the zone this cookie names: keep it the browser's own.
  useEffect(() => {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (zone && zone !== prefs.timeZone) saveSidebarPref(TIME_ZONE_COOKIE, zone);
  }, [prefs.timeZone]);
  useEffect(() => setPendingApprovals(initialPendingApprovals), [initialPendingApprovals]);
  useEffect(() => setSheetOpen(false), [pathname]);

  // The count is refetched rather than counted: an interrupted turn's approvals are denied without an event.
  const refreshTimer = useRef<number | null>(null);
  const refreshApprovals = useCallback(() => {
    if (refreshTimer.current !== null) window.clearTimeout(refreshTimer.current);
    refreshTimer.current = window.setTimeout(() => {
      apiFetch<{ approvals: unknown[] }>("/api/approvals?status=pending").then(
        (body) => setPendingApprovals(body.approvals.length),
        () => undefined,
      );
    }, 150);
  }, []);

  // The list the server rendered may be stale by the time the stream opens (or reopens): refetch it then.
  const refreshList = useCallback(() => {
    apiFetch<{ conversations: Conversation[]; nextCursor: string | null }>(`/api/conversations?limit=${SIDEBAR_LIMIT}&sort=updated&direction=desc`).then(
      (body) => {
        setConversations(body.conversations);
        setHasMore(body.nextCursor !== null);
      },
      () => undefined,
    );
    refreshApprovals();
  }, [refreshApprovals]);

  // Older pages by offset; a conversation that moved meanwhile may come twice, so rows merge by id.
  const loadMore = useCallback(() => {
    setLoadingMore(true);
    apiFetch<{ conversations: Conversation[]; nextCursor: string | null }>(
      `/api/conversations?limit=${SIDEBAR_LIMIT}&sort=updated&direction=desc&cursor=${conversations.length}`,
    ).then(
      (body) => {
        setConversations((current) => {
          const known = new Set(current.map((conversation) => conversation.id));
          return [...current, ...body.conversations.filter((conversation) => !known.has(conversation.id))];
        });
        setHasMore(body.nextCursor !== null);
        setLoadingMore(false);
      },
      () => setLoadingMore(false),
    );
  }, [conversations.length]);

  const notify = useDesktopNotifications(pendingApprovals, conversations);
  useLiveList((event) => {
    notify(event);
    switch (event.type) {
      case "conversation.created":
      case "conversation.updated": {
        const conversation = event.conversation;
        setConversations((current) => {
          const rest = current.filter((candidate) => candidate.id !== conversation.id);
          if (conversation.archived) return rest;
          return [...rest, conversation].sort(byRecency);
        });
        if (event.type === "conversation.updated") refreshApprovals();
        break;
      }
      case "conversation.deleted":
        setConversations((current) => current.filter((candidate) => candidate.id !== event.conversationId));
        clearConversationDraft(event.conversationId);
        refreshApprovals();
        break;
      case "approval.requested":
      case "approval.decided":
        refreshApprovals();
        break;
    }
  }, refreshList);

  const context = useMemo(() => ({ openSheet: () => setSheetOpen(true) }), []);
  const list = {
    grouping,
    timeZone: prefs.timeZone,
    onGroupingChange: (next: SidebarGrouping) => {
      setGrouping(next);
      saveSidebarPref(SIDEBAR_GROUPING_COOKIE, next);
    },
    more: { available: hasMore, loading: loadingMore, load: loadMore },
  };

  return (
    <SidebarContext.Provider value={context}>
      <div className="flex h-dvh w-full overflow-hidden">
        <aside aria-label="Sidebar" style={{ width }} className="relative hidden shrink-0 border-r bg-sidebar text-sidebar-foreground md:flex md:flex-col">
          <SidebarPanel conversations={conversations} pendingApprovals={pendingApprovals} list={list} />
          <SidebarResizeHandle width={width} onResize={setWidth} onCommit={(next) => saveSidebarPref(SIDEBAR_WIDTH_COOKIE, String(next))} />
        </aside>
        <Sheet open={sheetOpen} onOpenChange={setSheetOpen}>
          <SheetContent side="left" className="gap-0 bg-sidebar p-0 md:hidden" onOpenAutoFocus={(event) => {
              // Focus the panel, not the search field: on a phone that would pop the keyboard up.
              event.preventDefault();
              (event.currentTarget as HTMLElement | null)?.focus();
            }}
          >
            <SheetTitle className="sr-only">Sidebar</SheetTitle>
            <SheetDescription className="sr-only">Conversations and navigation</SheetDescription>
            <SidebarPanel conversations={conversations} pendingApprovals={pendingApprovals} list={list} inSheet />
          </SheetContent>
        </Sheet>
        <main className="flex min-w-0 flex-1 flex-col">{children}</main>
        <SessionEndedNotice />
      </div>
    </SidebarContext.Provider>
  );
}
