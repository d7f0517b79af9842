"use client";

import { useCallback, useEffect, useRef } from "react";
import type { Conversation } from "@/lib/events/entities";
import type { ListEvent } from "@/lib/events/events";
import { notificationsEnabled, notificationsSupported } from "./notification-preference";

const TITLE_COUNT = /^\(\d+\) /;

function notify(title: string, body: string, conversationId: string): void {
  if (!notificationsSupported() || !notificationsEnabled() || Notification.permission !== "granted") return;
  if (document.visibilityState === "visible") return;
  // One tag per conversation: a newer notice replaces the older one, and every open tab uses the same tag.
  const notification = new Notification(title, { body, tag: `atrium-${conversationId}` });
  notification.onclick = () => {
    window.focus();
    window.location.assign(`/c/${conversationId}`);
  };
}

/**
 * Desktop notifications for a hidden tab (a turn ended, an approval or a question waits) and the
 * count of waiting approvals in the tab title. Fed by the sidebar's list events.
 */
export function useDesktopNotifications(pendingApprovals: number, conversations: readonly Conversation[]): (event: ListEvent) => void {
  const statuses = useRef(new Map<string, Conversation["status"]>());
  const titles = useRef(new Map<string, string>());
  useEffect(() => {
    for (const conversation of conversations) {
      if (!statuses.current.has(conversation.id)) statuses.current.set(conversation.id, conversation.status);
      titles.current.set(conversation.id, conversation.title);
    }
  }, [conversations]);

  useEffect(() => {
    const apply = () => {
      const bare = document.title.replace(TITLE_COUNT, "");
      const wanted = pendingApprovals > 0 ? `(${pendingApprovals}) ${bare}` : bare;
      if (document.title !== wanted) document.title = wanted;
    };
    apply();
    // Next sets the title on navigation; put the count back whenever it does.
    const observer = new MutationObserver(apply);
    observer.observe(document.head, { subtree: true, childList: true, characterData: true });
    return () => observer.disconnect();
  }, [pendingApprovals]);

  return useCallback((event: ListEvent) => {
    if (event.type === "approval.requested") {
      const title = titles.current.get(event.conversationId) ?? "A conversation";
      notify("Approval needed", `${title}: ${event.approval.toolName} is waiting for your approval`, event.conversationId);
      return;
    }
    if (event.type !== "conversation.updated" && event.type !== "conversation.created") return;
    const conversation = event.conversation;
    titles.current.set(conversation.id, conversation.title);
    const before = statuses.current.get(conversation.id);
    statuses.current.set(conversation.id, conversation.status);
    if (before !== "running" || conversation.status === "running") return;
    if (conversation.status === "idle") notify("Turn finished", conversation.title, conversation.id);
    else notify("Waiting for you", `${conversation.title} has a question or an approval waiting`, conversation.id);
  }, []);
}
