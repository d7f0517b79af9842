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
import { useSidebarConversations } from "./use-sidebar-conversations";
import { saveSidebarPref, SIDEBAR_GROUPING_COOKIE, SIDEBAR_PROJECT_COOKIE, SIDEBAR_WIDTH_COOKIE, TIME_ZONE_COOKIE, type SidebarGrouping, type SidebarPrefs } from "./sidebar-prefs";


interface WorkspaceShellProps {
  initialConversations: Conversation[];
  initialPendingApprovals: number;
  prefs: SidebarPrefs;
  children: React.ReactNode;
}

/** Layout of every signed-in page: the sidebar (fixed on laptops, a sheet on phones) kept live by /api/events. */
export function WorkspaceShell({ initialConversations, initialPendingApprovals, prefs, children }: WorkspaceShellProps) {
  const { conversations, refresh, apply, more } = useSidebarConversations(initialConversations);
  const [width, setWidth] = useState(prefs.width);
  const [grouping, setGrouping] = useState<SidebarGrouping>(prefs.grouping);
  const [project, setProject] = useState<string | null>(prefs.project);
  const [pendingApprovals, setPendingApprovals] = useState(initialPendingApprovals);
  const [sheetOpen, setSheetOpen] = useState(false);
  const pathname = usePathname();

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

  const notify = useDesktopNotifications(pendingApprovals, conversations);
  useLiveList(
    (event) => {
      notify(event);
      apply(event);
      if (event.type === "conversation.deleted") clearConversationDraft(event.conversationId);
      if (event.type === "conversation.updated" || event.type === "conversation.deleted" || event.type === "approval.requested" || event.type === "approval.decided") {
        refreshApprovals();
      }
    },
    // The list the server rendered may be stale by the time the stream opens (or reopens): refetch it then.
    () => {
      refresh();
      refreshApprovals();
    },
  );

  const context = useMemo(() => ({ openSheet: () => setSheetOpen(true) }), []);
  const list = {
    grouping,
    timeZone: prefs.timeZone,
    onGroupingChange: (next: SidebarGrouping) => {
      setGrouping(next);
      saveSidebarPref(SIDEBAR_GROUPING_COOKIE, next);
    },
    project,
    onProjectChange: (next: string | null) => {
      setProject(next);
      saveSidebarPref(SIDEBAR_PROJECT_COOKIE, next);
    },
    more,
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
