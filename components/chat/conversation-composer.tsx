"use client";

import { useMemo } from "react";
import type { Conversation, ModelInfo, Turn } from "@/lib/events/entities";
import { newRequestKey } from "@/components/shared/api-client";
import { AttachButton, AttachmentChips, type AttachmentTray } from "@/components/attachments/attachments";
import { ImageModelWarning } from "@/components/attachments/image-model-warning";
import { Composer } from "./composer";
import { useConversationContext } from "./conversation-provider";
import { EffortPicker, ModelPicker, type Effort } from "./model-controls";
import type { OutgoingMessage } from "./outgoing-messages";
import type { SendMode } from "./send-mode";
import { runSlashCommand } from "./slash-command-actions";
import { useConversationActions } from "./use-conversation-actions";
import { useInterrupt } from "./use-interrupt";
import { WaitingList } from "./waiting-list";

interface ConversationComposerProps {
  draftKey: string;
  models: ModelInfo[];
  attachments: AttachmentTray;
  /** Text put back in the composer ("Edit" on a failed message). */
  injected: { text: string; nonce: number } | null;
  deliver: (message: OutgoingMessage) => void;
  /** After a message leaves: the history follows it to the bottom. */
  onSent: () => void;
}

function disabledReasonFor(conversation: Conversation): string | null {
  if (conversation.missing.includes("agent")) return `The agent “${conversation.agent}” is not defined on this machine`;
  if (conversation.missing.length > 0) return "Pick a replacement above before sending";
  return null;
}

/** The bottom of the conversation page: the waiting messages, the attachments and the composer with its toolbar. */
export function ConversationComposer({ draftKey, models, attachments, injected, deliver, onSent }: ConversationComposerProps) {
  const { id, state, openTurn } = useConversationContext();
  const { conversation } = state;
  const busy = openTurn !== null;
  const { fork } = useConversationActions();
  const { interrupting, interrupt } = useInterrupt(id, busy);
  const disabledReason = useMemo(() => disabledReasonFor(conversation), [conversation]);

  const send = async (text: string, mode: SendMode | "auto") => {
    const attached = attachments.ready;
    for (const entry of attached) attachments.remove(entry.key);
    deliver({ requestKey: newRequestKey(), text, mode, status: "sending", error: null, attachments: attached });
    onSent();
    return true;
  };

  return (
    <div className="shrink-0 px-3 pb-3 md:px-6">
      <div className="mx-auto w-full max-w-3xl">
        <WaitingList conversationId={id} waiting={state.waiting} held={!busy && conversation.status === "idle"} />
        <AttachmentChips tray={attachments} />
        <ImageModelWarning tray={attachments} model={models.find((model) => model.id === conversation.model)} models={models} />
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
          toolbar={<ComposerToolbar models={models} attachments={attachments} disabled={Boolean(disabledReason)} openTurn={openTurn} />}
        />
      </div>
    </div>
  );
}

function ComposerToolbar({ models, attachments, disabled, openTurn }: { models: ModelInfo[]; attachments: AttachmentTray; disabled: boolean; openTurn: Turn | null }) {
  const { conversation } = useConversationContext().state;
  const { patchConversation } = useConversationActions();
  const currentModel = models.find((model) => model.id === conversation.model);
  const keepsOtherModel = openTurn && openTurn.model !== conversation.model ? openTurn.model : null;
  return (
    <>
      <AttachButton tray={attachments} disabled={disabled} />
      <ModelPicker models={models} value={conversation.model} onChange={(model) => void patchConversation({ model }, "Could not change the model")} />
      {currentModel?.effort && (
        <EffortPicker value={conversation.effort as Effort | null} onChange={(effort) => void patchConversation({ effort }, "Could not change the effort")} />
      )}
      {keepsOtherModel && (
        <span className="text-xs text-muted-foreground" role="status">
          This turn keeps model {keepsOtherModel}; the next one uses {conversation.model}.
        </span>
      )}
    </>
  );
}
