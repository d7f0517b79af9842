"use client";

import { GitForkIcon, MoreHorizontalIcon, RotateCcwIcon } from "lucide-react";
import Link from "next/link";
import { useEffect, useId, useLayoutEffect, useRef, useState } from "react";
import { toast } from "sonner";
import type { Conversation } from "@/lib/events/entities";
import { cn } from "@/lib/utils";
import { DropdownMenu, DropdownMenuContent, DropdownMenuTrigger } from "@/components/ui/dropdown-menu";
import { ConversationActionItems, copyConversationLink } from "@/components/chat/conversation-action-items";
import { relativeTime } from "@/components/shared/format";
import { StatusDot } from "./status-dot";
import type { RowActions } from "./use-row-actions";

interface ConversationRowProps {
  conversation: Conversation;
  active: boolean;
  /** Where the link goes: the conversation, or a search hit inside it. */
  href: string;
  actions: RowActions;
  onAskDelete: (conversation: Conversation) => void;
  /** The title of a loaded conversation, for the "Restarted from …" line; undefined when it is not loaded. */
  titleOf: (id: string) => string | undefined;
}

/**
 * One conversation in the sidebar: its link, and its actions in a menu that opens from the "…"
 * button (shown on hover and on keyboard focus, always on touch screens), from a right-click,
 * or from the context-menu key (Shift+F10) on the focused link.
 */
export function ConversationRow({ conversation, active, href, actions, onAskDelete, titleOf }: ConversationRowProps) {
  const [menuOpen, setMenuOpen] = useState(false);
  const [renaming, setRenaming] = useState(false);
  const link = useRef<HTMLAnchorElement>(null);
  // Back to the link once it is mounted again after a rename (a frame callback could run before React commits).
  const focusLink = useRef(false);
  useLayoutEffect(() => {
    if (renaming || !focusLink.current) return;
    focusLink.current = false;
    link.current?.focus();
  }, [renaming]);
  const titleId = useId();
  const handlers = {
    onRename: () => setRenaming(true),
    onFork: () => void actions.fork(conversation.id),
    onArchive: (archived: boolean) => void actions.archive(conversation.id, archived),
    onProtect: (value: boolean) => void actions.protect(conversation.id, value),
    onCopyLink: () => void copyConversationLink(conversation.id, toast),
    onAskDelete: () => onAskDelete(conversation),
  };

  return (
    <li
      className="group/row relative min-w-0 [contain-intrinsic-size:auto_32px] [content-visibility:auto]"
      data-conversation-id={conversation.id}
      onContextMenu={(event) => {
        if (renaming) return;
        event.preventDefault();
        setMenuOpen(true);
      }}
    >
      {renaming ? (
        <RenameField
          title={conversation.title}
          onDone={async (title) => {
            if (title !== null && title !== conversation.title && !(await actions.rename(conversation.id, title))) return;
            focusLink.current = true;
            setRenaming(false);
          }}
        />
      ) : (
        <ConversationLink ref={link} conversation={conversation} active={active} href={href} titleId={titleId} parentTitle={conversation.forkedFrom ? titleOf(conversation.forkedFrom.conversationId) : undefined} />
      )}
      {!renaming && (
        <DropdownMenu open={menuOpen} onOpenChange={setMenuOpen} modal={false}>
          <DropdownMenuTrigger
            // The title is the description, not the name: a name holding it would match other controls' names.
            aria-label="More actions"
            aria-describedby={titleId}
            title="Actions (or right-click)"
            className={cn(
              "absolute top-1 right-1 flex size-6 items-center justify-center rounded-md text-muted-foreground transition-opacity outline-none",
              "hover:bg-background hover:text-foreground focus-visible:ring-2 focus-visible:ring-ring/50 data-[state=open]:bg-background data-[state=open]:text-foreground",
              "[@media(hover:hover)]:opacity-0 [@media(hover:hover)]:group-focus-within/row:opacity-100 [@media(hover:hover)]:group-hover/row:opacity-100 data-[state=open]:opacity-100",
            )}
          >
            <MoreHorizontalIcon className="size-4" />
          </DropdownMenuTrigger>
          <DropdownMenuContent align="start" side="bottom" className="w-56">
            <ConversationActionItems conversation={conversation} handlers={handlers} />
          </DropdownMenuContent>
        </DropdownMenu>
      )}
    </li>
  );
}

interface ConversationLinkProps {
  conversation: Conversation;
  active: boolean;
  href: string;
  titleId: string;
  parentTitle: string | undefined;
  ref: React.Ref<HTMLAnchorElement>;
}

function ConversationLink({ conversation, active, href, titleId, parentTitle, ref }: ConversationLinkProps) {
  const lineageId = useId();
  return (
    <Link
      ref={ref}
      href={href}
      prefetch={false}
      aria-current={active ? "page" : undefined}
      aria-label={conversation.title}
      aria-describedby={conversation.forkedFrom ? lineageId : undefined}
      data-status={conversation.status}
      className={cn(
        "grid grid-cols-[auto_minmax(0,1fr)_auto] items-center gap-x-2 rounded-md px-2 py-1.5 text-sm transition-colors outline-none group-hover/row:bg-sidebar-accent focus-visible:ring-2 focus-visible:ring-ring/50",
        active && "bg-sidebar-accent text-sidebar-accent-foreground",
      )}
    >
      <StatusDot status={conversation.status} />
      <span id={titleId} className={cn("truncate", active && "font-medium")}>
        {conversation.title}
      </span>
      {/* The "…" button takes the time's place when it shows. */}
      <time
        dateTime={conversation.updatedAt}
        className="shrink-0 text-right text-[11px] whitespace-nowrap text-muted-foreground tabular-nums group-focus-within/row:invisible group-hover/row:invisible group-has-[[data-state=open]]/row:invisible [@media(hover:none)]:invisible"
        suppressHydrationWarning
      >
        {conversation.archived ? "archived" : relativeTime(conversation.updatedAt)}
      </time>
      <LineageLine id={lineageId} conversation={conversation} parentTitle={parentTitle} />
    </Link>
  );
}

/** Rename in place: Enter or leaving the field saves, Esc cancels (onDone(null)). */
function RenameField({ title, onDone }: { title: string; onDone: (title: string | null) => Promise<void> }) {
  const [value, setValue] = useState(title);
  const input = useRef<HTMLInputElement>(null);
  const finished = useRef(false);
  useEffect(() => input.current?.select(), []);
  const finish = (next: string | null) => {
    if (finished.current) return;
    finished.current = true;
    const trimmed = next?.trim() ?? null;
    void onDone(trimmed === "" ? null : trimmed).finally(() => (finished.current = false));
  };
  return (
    <input
      ref={input}
      value={value}
      maxLength={200}
      aria-label="Conversation title"
      className="h-8 w-full rounded-md border bg-background px-2 text-sm outline-none focus-visible:ring-2 focus-visible:ring-ring/50"
      onChange={(event) => setValue(event.target.value)}
      onBlur={() => finish(value)}
      onKeyDown={(event) => {
        if (event.key === "Enter") {
          event.preventDefault();
          finish(value);
        } else if (event.key === "Escape") {
          event.preventDefault();
          event.stopPropagation();
          finish(null);
        }
      }}
    />
  );
}

/**
 * A restart or a fork says so on a line of its own under its title ("Restarted from <original>"),
 * which starts with what it is, so it stays readable however narrow the sidebar is.
 */
function LineageLine({ id, conversation, parentTitle }: { id: string; conversation: Conversation; parentTitle: string | undefined }) {
  if (!conversation.forkedFrom) return null;
  const restart = Boolean(conversation.restartOf);
  const Icon = restart ? RotateCcwIcon : GitForkIcon;
  const text = `${restart ? "Restarted from" : "Forked from"} ${parentTitle ?? "another conversation"}`;
  return (
    <span className="col-span-2 col-start-2 flex min-w-0 items-center gap-1 text-[11px] leading-4 text-muted-foreground" data-lineage={restart ? "restart" : "fork"} title={text}>
      <Icon className="size-3 shrink-0" aria-label={restart ? "Restart" : "Fork"} />
      <span id={id} className="min-w-0 truncate">
        {text}
      </span>
    </span>
  );
}
