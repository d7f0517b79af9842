"use client";

import { ArchiveIcon, FolderTreeIcon, LogOutIcon, MessageSquarePlusIcon, SearchIcon, SettingsIcon, ShieldCheckIcon, XIcon } from "lucide-react";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { Conversation } from "@/lib/events/entities";
import { cn } from "@/lib/utils";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { ThemeToggle } from "@/components/theme/theme-toggle";
import { apiFetch, errorMessage } from "@/components/shared/api-client";
import { clearAllDrafts } from "@/components/shared/drafts";
import { announceSignOut } from "@/components/shared/session-signal";
import { useMachines } from "@/components/machines/use-machines";
import { ConversationList } from "./conversation-list";
import { ProjectFilter, ProjectFilterBar, ProjectFilterEmpty, projectChoice, useProjectChoices } from "./project-filter";
import { projectKey, type SidebarGrouping } from "./sidebar-prefs";

interface SidebarPanelProps {
  conversations: Conversation[];
  pendingApprovals: number;
  list: {
    grouping: SidebarGrouping;
    onGroupingChange: (grouping: SidebarGrouping) => void;
    /** The project key the list is narrowed to, or null for all. */
    project: string | null;
    onProjectChange: (project: string | null) => void;
    timeZone: string;
    more: { available: boolean; loading: boolean; load: () => void };
  };
  /** In the phone sheet the close button sits top right: leave it room. */
  inSheet?: boolean;
}

type SearchState = { query: string; results: Conversation[] | null; error: string | null };

function useConversationSearch(query: string): SearchState {
  const [state, setState] = useState<SearchState>({ query: "", results: null, error: null });
  useEffect(() => {
    const trimmed = query.trim();
    if (trimmed === "") {
      setState({ query: "", results: null, error: null });
      return;
    }
    const controller = new AbortController();
    const timer = window.setTimeout(() => {
      const params = new URLSearchParams({ q: trimmed, archived: "all", limit: "50" });
      apiFetch<{ conversations: Conversation[] }>(`/api/conversations?${params}`, { signal: controller.signal }).then(
        (body) => setState({ query: trimmed, results: body.conversations, error: null }),
        (error) => {
          if (!controller.signal.aborted) setState({ query: trimmed, results: [], error: errorMessage(error) });
        },
      );
    }, 200);
    return () => {
      controller.abort();
      window.clearTimeout(timer);
    };
  }, [query]);
  return state;
}

/** The live list narrowed to the chosen project, the projects to choose from, and the chosen one as shown. */
function useProjectFilter(conversations: Conversation[], project: string | null) {
  const { machines } = useMachines();
  const machineName = useCallback((id: string) => machines.find((machine) => machine.id === id)?.name ?? id, [machines]);
  const choices = useProjectChoices(conversations, project, machineName);
  // The conversation open in the page stays listed, whatever its project: it must not vanish from under you.
  const pathname = usePathname();
  const narrowed = useMemo(
    () => (project ? conversations.filter((conversation) => projectKey(conversation) === project || pathname === `/c/${conversation.id}`) : conversations),
    [conversations, project, pathname],
  );
  return { conversations: narrowed, choices, chosen: project ? projectChoice(project, machineName) : null };
}

export function SidebarPanel({ conversations, pendingApprovals, list, inSheet = false }: SidebarPanelProps) {
  const pathname = usePathname();
  const [query, setQuery] = useState("");
  const search = useConversationSearch(query);
  const searching = query.trim() !== "";
  // Live status and titles come from the live list even for search results.
  const live = new Map(conversations.map((conversation) => [conversation.id, conversation]));
  const filter = useProjectFilter(conversations, list.project);
  const filterTrigger = useRef<HTMLButtonElement>(null);
  const shown = searching ? (search.results ?? []).map((result) => live.get(result.id) ?? result) : filter.conversations;

  return (
    <div className="flex h-full min-h-0 flex-col">
      <div className={cn("flex items-center justify-between gap-2 px-3 pt-3 pb-2", inSheet && "pr-11")}>
        <Link href="/" className="flex items-center gap-2 rounded-md px-1 font-semibold tracking-tight" aria-label="Atrium home">
          <span className="flex size-7 items-center justify-center rounded-md bg-primary text-sm text-primary-foreground" aria-hidden>
            A
          </span>
          Atrium
        </Link>
        <Button asChild size="sm" variant="outline" className="h-8">
          <Link href="/new">
            <MessageSquarePlusIcon />
            New chat
          </Link>
        </Button>
      </div>
      <SearchField query={query} onChange={setQuery} />
      <nav aria-label="Workspace" className="grid gap-0.5 px-2 pb-2">
        <SidebarLink href="/approvals" active={pathname === "/approvals"} icon={<ShieldCheckIcon />} label="Approvals">
          {pendingApprovals > 0 && (
            <Badge variant="warning" className="ml-auto h-5 min-w-5 rounded-full px-1.5 tabular-nums" aria-label={`${pendingApprovals} pending`}>
              {pendingApprovals}
            </Badge>
          )}
        </SidebarLink>
        <SidebarLink href="/archive" active={pathname === "/archive"} icon={<ArchiveIcon />} label="Archive" />
        <SidebarLink href="/settings" active={pathname.startsWith("/settings")} icon={<SettingsIcon />} label="Settings" />
      </nav>
      <div className="flex h-7 items-center justify-between gap-2 pr-2 pl-4 text-xs font-medium text-muted-foreground">
        <span className="min-w-0 truncate">
          {searching ? (search.results === null || search.query !== query.trim() ? "Searching…" : `Results for “${query.trim()}”`) : "Conversations"}
        </span>
        {!searching && (
          <span className="flex shrink-0 items-center gap-0.5">
            <GroupingToggle grouping={list.grouping} onChange={list.onGroupingChange} />
            <ProjectFilter choices={filter.choices} chosen={filter.chosen} onChange={list.onProjectChange} triggerRef={filterTrigger} />
          </span>
        )}
      </div>
      {!searching && filter.chosen && (
        <ProjectFilterBar
          chosen={filter.chosen}
          onClear={() => {
            list.onProjectChange(null);
            filterTrigger.current?.focus();
          }}
        />
      )}
      <nav aria-label="Conversations" className="min-h-0 flex-1 overflow-y-auto px-2 pb-2">
        {search.error && <p className="px-2 py-1 text-xs text-destructive">{search.error}</p>}
        {!searching && filter.chosen && shown.length === 0 ? (
          <ProjectFilterEmpty chosen={filter.chosen} more={list.more} />
        ) : shown.length === 0 ? (
          <p className="px-2 py-6 text-center text-xs text-muted-foreground">
            {searching ? (search.results === null ? "" : "Nothing matches.") : "No conversations yet."}
          </p>
        ) : (
          <ConversationList
            conversations={shown}
            pathname={pathname}
            searchQuery={searching ? query.trim() : null}
            grouping={list.grouping}
            timeZone={list.timeZone}
            more={list.more}
            titleOf={(id) => live.get(id)?.title}
          />
        )}
      </nav>
      <div className="flex items-center justify-between gap-2 border-t px-3 py-2">
        <form
          method="post"
          action="/auth/signout"
          onSubmit={() => {
            clearAllDrafts();
            announceSignOut();
          }}
        >
          <Button type="submit" variant="ghost" size="sm" className="text-muted-foreground">
            <LogOutIcon />
            Sign out
          </Button>
        </form>
        <ThemeToggle />
      </div>
    </div>
  );
}

function SidebarLink({
  href,
  active,
  icon,
  label,
  children,
}: {
  href: string;
  active: boolean;
  icon: React.ReactNode;
  label: string;
  children?: React.ReactNode;
}) {
  return (
    <Link
      href={href}
      aria-current={active ? "page" : undefined}
      className={cn(
        "flex h-8 items-center gap-2 rounded-md px-2 text-sm text-sidebar-foreground/80 transition-colors hover:bg-sidebar-accent hover:text-sidebar-accent-foreground [&_svg]:size-4 [&_svg]:text-muted-foreground",
        active && "bg-sidebar-accent font-medium text-sidebar-accent-foreground",
      )}
    >
      {icon}
      <span>{label}</span>
      {children}
    </Link>
  );
}

/** By date or by project (folder and machine); the choice is remembered by the browser. */
function GroupingToggle({ grouping, onChange }: { grouping: SidebarGrouping; onChange: (grouping: SidebarGrouping) => void }) {
  const byProject = grouping === "project";
  return (
    <Button
      variant="ghost"
      size="sm"
      aria-pressed={byProject}
      aria-label="Group by project"
      title={byProject ? "Grouped by project: show by date" : "Grouped by date: show by project"}
      className="h-6 gap-1 px-1.5 text-xs font-normal text-muted-foreground aria-pressed:bg-sidebar-accent aria-pressed:text-sidebar-accent-foreground [&_svg]:size-3.5"
      onClick={() => onChange(byProject ? "date" : "project")}
    >
      <FolderTreeIcon />
      By project
    </Button>
  );
}

function SearchField({ query, onChange }: { query: string; onChange: (query: string) => void }) {
  return (
    <div className="px-3 pb-2">
      <div className="relative">
        <SearchIcon className="pointer-events-none absolute top-1/2 left-2.5 size-4 -translate-y-1/2 text-muted-foreground" />
        <Input
          type="search"
          value={query}
          onChange={(event) => onChange(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === "Escape") onChange("");
          }}
          placeholder="Search conversations"
          aria-label="Search conversations"
          className="h-8 bg-background pr-8 pl-8 [&::-webkit-search-cancel-button]:hidden"
        />
        {query && (
          <button
            type="button"
            aria-label="Clear search"
            className="absolute top-1/2 right-2 -translate-y-1/2 rounded-sm text-muted-foreground hover:text-foreground"
            onClick={() => onChange("")}
          >
            <XIcon className="size-4" />
          </button>
        )}
      </div>
    </div>
  );
}
