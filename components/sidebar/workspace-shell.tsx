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

const SIDEBAR_LIMIT = 100;

function byRecency(a: Conversation, b: Conversation): number {
  return a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : a.id < b.id ? 1 : -1;
}

interface WorkspaceShellProps {
  initialConversations: Conversation[];
  initialPendingApprovals: number;
  children: React.ReactNode;
}

/** Layout of every signed-in page: the sidebar (fixed on laptops, a sheet on phones) kept live by /api/events. */
export function WorkspaceShell({ initialConversations, initialPendingApprovals, children }: WorkspaceShellProps) {
  const [conversations, setConversations] = useState(initialConversations);
  const [pendingApprovals, setPendingApprovals] = useState(initialPendingApprovals);
  const [sheetOpen, setSheetOpen] = useState(false);
  const pathname = usePathname();

  useEffect(() => setConversations(initialConversations), [initialConversations]);
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
    apiFetch<{ conversations: Conversation[] }>(`/api/conversations?limit=${SIDEBAR_LIMIT}&sort=updated&direction=desc`).then(
      (body) => setConversations(body.conversations),
      () => undefined,
    );
    refreshApprovals();
  }, [refreshApprovals]);

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
  const panel = <SidebarPanel conversations={conversations} pendingApprovals={pendingApprovals} />;

  return (
    <SidebarContext.Provider value={context}>
      <div className="flex h-dvh w-full overflow-hidden">
        <aside aria-label="Sidebar" className="hidden w-72 shrink-0 border-r bg-sidebar text-sidebar-foreground md:flex md:flex-col">
          {panel}
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
            <SidebarPanel conversations={conversations} pendingApprovals={pendingApprovals} inSheet />
          </SheetContent>
        </Sheet>
        <main className="flex min-w-0 flex-1 flex-col">{children}</main>
        <SessionEndedNotice />
      </div>
    </SidebarContext.Provider>
  );
}
