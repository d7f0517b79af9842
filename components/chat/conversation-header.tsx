"use client";

import { SearchIcon, ShieldIcon } from "lucide-react";
import { useEffect, useState } from "react";
import type { Conversation } from "@/lib/events/entities";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { PageHeader } from "@/components/sidebar/page-header";
import { StatusDot } from "@/components/sidebar/status-dot";
import type { ConnectionState } from "@/components/live/use-live";
import { AgentsButton } from "@/components/agents/agents-panel";
import { ContextRing } from "@/components/context/context-ring";
import { useConversationContext } from "./conversation-provider";
import { ConversationMenu } from "./conversation-menu";
import { ConversationTitle } from "./conversation-title";
import { MachineBadge } from "@/components/machines/machine-badge";
import { useConversationActions } from "./use-conversation-actions";

const STATUS_LABEL: Record<Conversation["status"], string> = { idle: "Idle", running: "Running", waiting: "Waiting for you" };

/** The conversation page's header: title (renamed in place), status, find, context ring, agents and the menu. */
export function ConversationHeader({ onFind }: { onFind: () => void }) {
  const { id, state, connection } = useConversationContext();
  const { conversation } = state;
  const { patchConversation, archive, protect, fork, remove } = useConversationActions();
  const [renaming, setRenaming] = useState(false);
  // The page's metadata is rendered once on the server; a rename (here or in another tab) must reach the tab title too.
  useEffect(() => {
    document.title = `${conversation.title} · Atrium`;
  }, [conversation.title]);

  return (
    <PageHeader
      title={
        <div className="flex min-w-0 flex-1 items-center gap-2">
          <ConversationTitle
            title={conversation.title}
            editing={renaming}
            onEditingChange={setRenaming}
            onSave={async (title) => (await patchConversation({ title }, "Could not rename")) !== null}
          />
          {!renaming && <StatusBadge status={conversation.status} />}
          {!renaming && <MachineBadge machineId={conversation.machine} cwd={conversation.cwd} />}
          {connection !== "open" && !renaming && <ConnectionBadge connection={connection} />}
          {conversation.protected && !renaming && (
            <span title="Protected from deletion" className="text-muted-foreground">
              <ShieldIcon className="size-4" aria-label="Protected" />
            </span>
          )}
        </div>
      }
    >
      <Button variant="ghost" size="icon-sm" aria-label="Find in conversation" title="Find in conversation (Ctrl+F)" onClick={onFind}>
        <SearchIcon />
      </Button>
      <ContextRing conversationId={id} sessionId={conversation.rootSessionId} />
      <AgentsButton conversation={conversation} />
      <ConversationMenu
        conversation={conversation}
        onRename={() => setRenaming(true)}
        onFork={() => void fork()}
        onArchive={(archived) => void archive(archived)}
        onProtect={(value) => void protect(value)}
        onDelete={remove}
      />
    </PageHeader>
  );
}

function StatusBadge({ status }: { status: Conversation["status"] }) {
  return (
    <Badge
      variant="outline"
      className={`shrink-0 gap-1.5 text-muted-foreground max-sm:px-1.5 ${status === "idle" ? "hidden sm:inline-flex" : "inline-flex"}`}
      aria-label={`Status: ${STATUS_LABEL[status]}`}
    >
      <StatusDot status={status} />
      <span className="max-sm:sr-only">{STATUS_LABEL[status]}</span>
    </Badge>
  );
}

function ConnectionBadge({ connection }: { connection: ConnectionState }) {
  return (
    <Badge variant="secondary" className="gap-1.5 text-muted-foreground" role="status">
      <span className="size-1.5 animate-pulse rounded-full bg-muted-foreground" aria-hidden />
      {connection === "connecting" ? "Connecting…" : "Reconnecting…"}
    </Badge>
  );
}
