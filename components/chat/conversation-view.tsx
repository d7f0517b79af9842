"use client";

import { SearchIcon, ShieldIcon } from "lucide-react";
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from "react";
import { toast } from "sonner";
import { resyncConversation } from "@/app/(workspace)/c/[id]/actions";
import type { Approval, Conversation, Item, ModelInfo, Question, Turn, Waiting } from "@/lib/events/entities";
import type { ConversationEvent } from "@/lib/events/events";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { PageHeader } from "@/components/sidebar/page-header";
import { StatusDot } from "@/components/sidebar/status-dot";
import { ApiError, apiFetch, errorMessage, newRequestKey } from "@/components/shared/api-client";
import { clearConversationDraft, conversationDraftKey, writeDraft } from "@/components/shared/drafts";
import { useLiveConversation } from "@/components/live/use-live";
import { AgentsButton } from "@/components/agents/agents-panel";
import { AttachButton, AttachmentChips, useAttachmentTray } from "@/components/attachments/attachments";
import { ContextRing } from "@/components/context/context-ring";
import { RestartDialog, type RestartChoice } from "@/components/checkpoints/restart-dialog";
import { ArchivedBanner, MissingBanner, ObjectiveBanner } from "./banners";
import { Composer, type SendMode } from "./composer";
import { ConversationMenu } from "./conversation-menu";
import { conversationReducer, initialState, openTurn as findOpenTurn } from "./conversation-state";
import { ConversationTitle } from "./conversation-title";
import { OutgoingMessages } from "./outgoing-messages";
import { useOutgoingMessages } from "./use-outgoing-messages";
import { HistoryPane, type HistoryControls } from "./history-pane";
import { EffortPicker, ModelPicker, type Effort } from "./model-controls";
import { runSlashCommand, setObjectiveStatus } from "./slash-command-actions";
import { WaitingList } from "./waiting-list";

interface ConversationViewProps {
  conversation: Conversation;
  items: Item[];
  turns: Turn[];
  waiting: Waiting[];
  approvals: Approval[];
  questions: Question[];
  models: ModelInfo[];
  /** undefined: not a fork; null: forked from a conversation not on this machine. */
  parent: { id: string; title: string } | null | undefined;
}

const STATUS_LABEL: Record<Conversation["status"], string> = { idle: "Idle", running: "Running", waiting: "Waiting for you" };

export function ConversationView(props: ConversationViewProps) {
  const router = useRouter();
  const [state, dispatch] = useReducer(conversationReducer, props, initialState);
  const { conversation } = state;
  const id = conversation.id;
  const [renaming, setRenaming] = useState(false);
  const [interrupting, setInterrupting] = useState(false);
  const [restartingItemId, setRestartingItemId] = useState<string | null>(null);
  const [restartItem, setRestartItem] = useState<Item | null>(null);
  const [restartOutside, setRestartOutside] = useState<string[] | null>(null);
  const [injected, setInjected] = useState<{ text: string; nonce: number } | null>(null);
  const [findOpen, setFindOpen] = useState(false);
  const historyControls = useRef<HistoryControls>(null);
  const attachments = useAttachmentTray();

  const itemsRef = useRef(state.items);
  itemsRef.current = state.items;
  const hasNewer = useRef(state.hasNewer);
  hasNewer.current = state.hasNewer;

  const resync = useCallback(
    (afterSeq: number) => {
      resyncConversation(id, afterSeq).then(
        (data) => {
          if (data) dispatch({ type: "resync", data });
        },
        () => undefined,
      );
    },
    [id],
  );

  const connection = useLiveConversation(id, (event: ConversationEvent) => {
    if (event.type === "snapshot") {
      // The snapshot covers running turns only. Fetch what finished while this page was not
      // listening, from the first item still open here (it may have completed meanwhile).
      const known = itemsRef.current;
      const firstOpen = known.find((item) => item.status === "streaming" || item.status === "waiting");
      // A window that stops short of the latest (after a jump) fetches newer pages as it scrolls instead.
      const afterSeq = hasNewer.current ? Number.MAX_SAFE_INTEGER : firstOpen ? firstOpen.seq - 1 : known.length > 0 ? known[known.length - 1].seq : 0;
      dispatch({ type: "event", event, receivedAt: Date.now() });
      resync(afterSeq);
      return;
    }
    dispatch({ type: "event", event, receivedAt: Date.now() });
  });

  const openTurn = findOpenTurn(state);
  const busy = openTurn !== null;
  const models = props.models;
  const currentModel = models.find((model) => model.id === conversation.model);

  // ---- conversation changes ------------------------------------------------

  const patchConversation = useCallback(
    async (patch: Partial<Pick<Conversation, "title" | "archived" | "protected" | "model" | "effort" | "cwd">>, failure: string) => {
      try {
        const body = await apiFetch<{ conversation: Conversation }>(`/api/conversations/${id}`, { method: "PATCH", body: patch });
        dispatch({ type: "conversation", conversation: body.conversation });
        return body.conversation;
      } catch (error) {
        toast.error(`${failure}: ${errorMessage(error)}`);
        return null;
      }
    },
    [id],
  );

  const archive = async (archived: boolean) => {
    const updated = await patchConversation({ archived }, archived ? "Could not archive" : "Could not unarchive");
    if (!updated) return;
    toast.success(archived ? "Conversation archived" : "Conversation unarchived", {
      action: archived ? { label: "Undo", onClick: () => void patchConversation({ archived: false }, "Could not unarchive") } : undefined,
    });
  };

  const protect = async (value: boolean) => {
    const updated = await patchConversation({ protected: value }, value ? "Could not protect" : "Could not unprotect");
    if (updated) toast.success(value ? "Protected: it cannot be deleted until unprotected" : "No longer protected");
  };

  const fork = async () => {
    try {
      const body = await apiFetch<{ conversation: Conversation }>(`/api/conversations/${id}/fork`, { method: "POST", body: { requestKey: newRequestKey() } });
      toast.success("Forked: you are now in the copy");
      router.push(`/c/${body.conversation.id}`);
    } catch (error) {
      toast.error(`Could not fork: ${errorMessage(error)}`);
    }
  };

  const remove = async () => {
    try {
      await apiFetch(`/api/conversations/${id}`, { method: "DELETE" });
      clearConversationDraft(id);
      toast.success(`Deleted “${conversation.title}”`);
      router.push("/");
      router.refresh();
    } catch (error) {
      toast.error(`Could not delete: ${errorMessage(error)}`);
    }
  };

  const restartFrom = async (item: Item, choice: RestartChoice) => {
    setRestartingItemId(item.id);
    try {
      const body = await apiFetch<{ conversation: Conversation; draft: string; restored: string[] }>(`/api/conversations/${id}/rewind`, {
        method: "POST",
        body: { itemId: item.id, restoreFiles: choice.restoreFiles, force: choice.force, requestKey: newRequestKey() },
      });
      // The draft is stored before navigating so the new conversation's composer opens with it.
      writeDraft(conversationDraftKey(body.conversation.id), body.draft);
      setRestartItem(null);
      setRestartOutside(null);
      const restored = body.restored.length > 0 ? ` ${body.restored.length} ${body.restored.length === 1 ? "file" : "files"} restored.` : "";
      toast.success(`Restarted in a new conversation; edit the message and send it.${restored}`);
      router.push(`/c/${body.conversation.id}`);
    } catch (error) {
      const outside = error instanceof ApiError && error.code === "files_changed_outside" ? error.details.files : undefined;
      if (Array.isArray(outside)) setRestartOutside(outside.map(String));
      else toast.error(`Could not restart from here: ${errorMessage(error)}`);
    } finally {
      setRestartingItemId(null);
    }
  };

  // ---- sending -------------------------------------------------------------

  const draftKey = conversationDraftKey(id);
  const { outgoing, deliver, forget } = useOutgoingMessages(id, draftKey, state.items, state.waiting);

  const send = async (text: string, mode: SendMode | "auto") => {
    const attached = attachments.ready;
    for (const entry of attached) attachments.remove(entry.key);
    deliver({ requestKey: newRequestKey(), text, mode, status: "sending", error: null, attachments: attached });
    historyControls.current?.scrollToBottom();
    return true;
  };

  const interrupt = useCallback(async () => {
    setInterrupting(true);
    try {
      await apiFetch(`/api/conversations/${id}/interrupt`, { method: "POST", body: {} });
    } catch (error) {
      toast.error(`Could not interrupt: ${errorMessage(error)}`);
    } finally {
      setInterrupting(false);
    }
  }, [id]);

  // Esc interrupts from anywhere on the page; text fields and open menus or dialogs handle their own Esc.
  useEffect(() => {
    if (!busy) return;
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== "Escape" || event.defaultPrevented) return;
      const target = event.target as HTMLElement | null;
      if (target?.closest("input, textarea, select, [contenteditable=true]")) return;
      if (document.querySelector("[role=dialog], [role=alertdialog], [role=menu], [role=listbox]")) return;
      void interrupt();
    };
    window.addEventListener("keydown", onKeyDown, true);
    return () => window.removeEventListener("keydown", onKeyDown, true);
  }, [busy, interrupt]);

  const disabledReason = useMemo(() => {
    if (conversation.missing.includes("agent")) return `The agent “${conversation.agent}” is not defined on this machine`;
    if (conversation.missing.length > 0) return "Pick a replacement above before sending";
    return null;
  }, [conversation.missing, conversation.agent]);

  const forkedFrom =
    conversation.forkedFrom && props.parent !== undefined ? { conversationId: conversation.forkedFrom.conversationId, parent: props.parent } : null;
  const keepsOtherModel = openTurn && openTurn.model !== conversation.model ? openTurn.model : null;

  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <PageHeader
        title={
          <div className="flex min-w-0 flex-1 items-center gap-2">
            <ConversationTitle
              title={conversation.title}
              editing={renaming}
              onEditingChange={setRenaming}
              onSave={async (title) => (await patchConversation({ title }, "Could not rename")) !== null}
            />
            {!renaming && (
              <Badge
                variant="outline"
                className={`shrink-0 gap-1.5 text-muted-foreground ${conversation.status === "idle" ? "hidden sm:inline-flex" : "inline-flex"}`}
                aria-label={`Status: ${STATUS_LABEL[conversation.status]}`}
              >
                <StatusDot status={conversation.status} />
                {STATUS_LABEL[conversation.status]}
              </Badge>
            )}
            {connection !== "open" && !renaming && (
              <Badge variant="secondary" className="gap-1.5 text-muted-foreground" role="status">
                <span className="size-1.5 animate-pulse rounded-full bg-muted-foreground" aria-hidden />
                {connection === "connecting" ? "Connecting…" : "Reconnecting…"}
              </Badge>
            )}
            {conversation.protected && !renaming && (
              <span title="Protected from deletion" className="text-muted-foreground">
                <ShieldIcon className="size-4" aria-label="Protected" />
              </span>
            )}
          </div>
        }
      >
        <Button variant="ghost" size="icon-sm" aria-label="Find in conversation" title="Find in conversation (Ctrl+F)" onClick={() => setFindOpen(true)}>
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
      <MissingBanner
        conversation={conversation}
        models={models}
        onPatch={async (patch) => {
          const updated = await patchConversation(patch, "Could not update");
          if (updated && updated.missing.length === 0) toast.success("Ready to continue");
          return updated !== null;
        }}
      />
      {conversation.archived && <ArchivedBanner onUnarchive={() => void archive(false)} />}
      {conversation.objective && <ObjectiveBanner objective={conversation.objective} onSetStatus={(status) => void setObjectiveStatus(id, status)} />}
      <HistoryPane
        state={state}
        dispatch={dispatch}
        openTurn={openTurn}
        live={connection === "open"}
        forkedFrom={forkedFrom}
        restartingItemId={restartingItemId}
        onRestart={(item) => {
          setRestartOutside(null);
          setRestartItem(item);
        }}
        findOpen={findOpen}
        onFindOpenChange={setFindOpen}
        controls={historyControls}
      >
        <RestartDialog
          conversationId={id}
          item={restartItem}
          busy={restartingItemId !== null}
          outside={restartOutside}
          onCancel={() => {
            setRestartItem(null);
            setRestartOutside(null);
          }}
          onConfirm={(choice) => restartItem && void restartFrom(restartItem, choice)}
        />
        <OutgoingMessages
          outgoing={outgoing}
          onRetry={(message) => deliver(message)}
          onEdit={(message) => {
            forget(message, false);
            setInjected({ text: message.text, nonce: Date.now() });
            if (message.attachments?.length) attachments.restore(message.attachments);
          }}
          onDiscard={(message) => forget(message, true)}
        />
      </HistoryPane>
      <div className="shrink-0 px-3 pb-3 md:px-6">
        <div className="mx-auto w-full max-w-3xl">
          <WaitingList conversationId={id} waiting={state.waiting} />
          <AttachmentChips tray={attachments} />
          <Composer
            draftKey={draftKey}
            busy={busy}
            disabledReason={disabledReason}
            placeholder={busy ? "Steer, queue or jump in…" : "Reply…"}
            slashCommands
            clearOn="submit"
            onSubmit={send}
            onCommand={(command, argument) => void runSlashCommand(id, command, argument, fork)}
            onInterrupt={() => void interrupt()}
            interrupting={interrupting}
            injected={injected}
            toolbar={
              <>
                <AttachButton tray={attachments} disabled={Boolean(disabledReason)} />
                <ModelPicker
                  models={models}
                  value={conversation.model}
                  onChange={(model) => void patchConversation({ model }, "Could not change the model")}
                />
                {currentModel?.effort && (
                  <EffortPicker value={conversation.effort as Effort | null} onChange={(effort) => void patchConversation({ effort }, "Could not change the effort")} />
                )}
                {keepsOtherModel && (
                  <span className="text-xs text-muted-foreground" role="status">
                    This turn keeps model {keepsOtherModel}; the next one uses {conversation.model}.
                  </span>
                )}
              </>
            }
          />
        </div>
      </div>
    </div>
  );
}
