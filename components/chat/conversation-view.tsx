"use client";

import { useSearchParams } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import type { ModelInfo } from "@/lib/events/entities";
import { conversationDraftKey } from "@/components/shared/drafts";
import { useAttachmentTray } from "@/components/attachments/attachments";
import { RestartDialog } from "@/components/checkpoints/restart-dialog";
import { ConversationBanners } from "./conversation-banners";
import { ConversationComposer } from "./conversation-composer";
import { ConversationHeader } from "./conversation-header";
import { ConversationProvider, useConversationContext } from "./conversation-provider";
import { HistoryPane, type HistoryControls } from "./history-pane";
import { LineageProvider, type Lineage } from "./lineage";
import { OutgoingMessages } from "./outgoing-messages";
import { useConversation, type ConversationInitialData } from "./use-conversation";
import { useOutgoingMessages } from "./use-outgoing-messages";
import { useRestartFromHere } from "./use-restart-from-here";

interface ConversationViewProps extends ConversationInitialData {
  models: ModelInfo[];
  /** undefined: not a fork; null: forked from a conversation not on this machine. */
  parent: { id: string; title: string } | null | undefined;
  lineage: Lineage;
}

export function ConversationView({ models, parent, lineage, ...initial }: ConversationViewProps) {
  const store = useConversation(initial.conversation.id, initial);
  return (
    <ConversationProvider store={store}>
      <LineageProvider lineage={lineage}>
        <ConversationLayout models={models} parent={parent} />
      </LineageProvider>
    </ConversationProvider>
  );
}

/** The page's parts, and the little they share: find, the attachments tray, the messages being sent, the restart dialog. */
function ConversationLayout({ models, parent }: Pick<ConversationViewProps, "models" | "parent">) {
  const { id, state } = useConversationContext();
  const { conversation } = state;
  const [injected, setInjected] = useState<{ text: string; nonce: number } | null>(null);
  const [findOpen, setFindOpen] = useState(false);
  const findSeed = useFindFromAddress(setFindOpen);
  const historyControls = useRef<HistoryControls>(null);
  const attachments = useAttachmentTray();
  const restart = useRestartFromHere(id);
  const draftKey = conversationDraftKey(id);
  const { outgoing, deliver, forget } = useOutgoingMessages(id, draftKey, state.items, state.waiting);
  const forkedFrom = conversation.forkedFrom && parent !== undefined ? { conversationId: conversation.forkedFrom.conversationId, parent, restart: Boolean(conversation.restartOf) } : null;

  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <ConversationHeader onFind={() => setFindOpen(true)} />
      <ConversationBanners models={models} />
      <HistoryPane
        forkedFrom={forkedFrom}
        restartingItemId={restart.restartingItemId}
        onRestart={restart.open}
        findOpen={findOpen}
        findSeed={findSeed}
        onFindOpenChange={setFindOpen}
        controls={historyControls}
      >
        <RestartDialog
          conversationId={id}
          item={restart.restartItem}
          busy={restart.restartingItemId !== null}
          outside={restart.restartOutside}
          onCancel={restart.cancel}
          onConfirm={restart.confirm}
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
      <ConversationComposer
        draftKey={draftKey}
        models={models}
        attachments={attachments}
        injected={injected}
        deliver={deliver}
        onSent={() => historyControls.current?.scrollToBottom()}
      />
    </div>
  );
}

/** `?find=words` (a sidebar search hit): open find with those words, so the view goes to the newest match. */
function useFindFromAddress(setFindOpen: (open: boolean) => void): { query: string; nonce: number } | null {
  const query = useSearchParams().get("find");
  const [seed, setSeed] = useState<{ query: string; nonce: number } | null>(null);
  useEffect(() => {
    if (!query) return;
    setSeed({ query, nonce: Date.now() });
    setFindOpen(true);
  }, [query, setFindOpen]);
  return seed;
}
