"use client";

import { Loader2Icon } from "lucide-react";
import { useEffect, useMemo, useState } from "react";
import type { Conversation } from "@/lib/events/entities";
import { Button } from "@/components/ui/button";
import { DeleteConversationDialog } from "@/components/chat/delete-conversation-dialog";
import { useMachines } from "@/components/machines/use-machines";
import { dateGroups, projectGroups, type ConversationGroup } from "./conversation-groups";
import { ConversationRow } from "./conversation-row";
import type { SidebarGrouping } from "./sidebar-prefs";
import { useRowActions } from "./use-row-actions";

interface ConversationListProps {
  conversations: Conversation[];
  pathname: string;
  /** Search results are one flat list, each link opening at the match; the live list is grouped. */
  searchQuery: string | null;
  grouping: SidebarGrouping;
  timeZone: string;
  more: { available: boolean; loading: boolean; load: () => void };
  /** Titles of every loaded conversation (not only the shown ones), for the lineage lines. */
  titleOf: (id: string) => string | undefined;
}

/** The sidebar's conversations: in date or project groups (or search results), with one delete confirmation for all rows. */
export function ConversationList({ conversations, pathname, searchQuery, grouping, timeZone, more, titleOf }: ConversationListProps) {
  const actions = useRowActions();
  const [deleting, setDeleting] = useState<Conversation | null>(null);
  const rows = (list: Conversation[]) =>
    list.map((conversation) => (
      <ConversationRow
        key={conversation.id}
        conversation={conversation}
        active={pathname === `/c/${conversation.id}`}
        href={searchQuery ? `/c/${conversation.id}?find=${encodeURIComponent(searchQuery)}` : `/c/${conversation.id}`}
        actions={actions}
        onAskDelete={setDeleting}
        titleOf={titleOf}
      />
    ));

  return (
    <>
      {searchQuery !== null ? (
        <ul className="flex flex-col gap-0.5">{rows(conversations)}</ul>
      ) : grouping === "project" ? (
        <ProjectGroups conversations={conversations} rows={rows} />
      ) : (
        <DateGroups conversations={conversations} timeZone={timeZone} rows={rows} />
      )}
      {searchQuery === null && more.available && (
        <div className="flex justify-center pt-2">
          <Button variant="ghost" size="sm" className="text-muted-foreground" disabled={more.loading} onClick={more.load}>
            {more.loading && <Loader2Icon className="animate-spin" />}
            Show older conversations
          </Button>
        </div>
      )}
      <DeleteConversationDialog
        title={deleting?.title ?? ""}
        open={deleting !== null}
        onOpenChange={(open) => !open && setDeleting(null)}
        onDelete={async () => {
          if (deleting) await actions.remove(deleting);
        }}
      />
    </>
  );
}

type Rows = (list: Conversation[]) => React.ReactNode;

function Groups({ groups, rows }: { groups: ConversationGroup[]; rows: Rows }) {
  return (
    <div className="flex flex-col gap-3">
      {groups.map((group) => (
        <section key={group.key} aria-label={group.label} className="min-w-0">
          <h2 className="truncate px-2 pb-1 text-xs font-medium text-muted-foreground" title={group.title}>
            {group.label}
          </h2>
          <ul className="flex flex-col gap-0.5">{rows(group.conversations)}</ul>
        </section>
      ))}
    </div>
  );
}

/** Date groups in the reader's time zone: the server's guess (a cookie) first, the browser's own once mounted. */
function DateGroups({ conversations, timeZone, rows }: { conversations: Conversation[]; timeZone: string; rows: Rows }) {
  const [zone, setZone] = useState(timeZone);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    setZone(Intl.DateTimeFormat().resolvedOptions().timeZone || timeZone);
    // "Today" moves at midnight: regroup every few minutes, which also ages the relative times.
    const timer = window.setInterval(() => setNow(Date.now()), 5 * 60_000);
    return () => window.clearInterval(timer);
  }, [timeZone]);
  const groups = useMemo(() => dateGroups(conversations, now, zone), [conversations, now, zone]);
  return <Groups groups={groups} rows={rows} />;
}

function ProjectGroups({ conversations, rows }: { conversations: Conversation[]; rows: Rows }) {
  const { machines } = useMachines();
  const groups = useMemo(() => {
    const names = new Map(machines.map((machine) => [machine.id, machine.name]));
    return projectGroups(conversations, (id) => names.get(id) ?? id);
  }, [conversations, machines]);
  return <Groups groups={groups} rows={rows} />;
}
