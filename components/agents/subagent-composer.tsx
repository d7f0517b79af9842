"use client";

import { Loader2Icon, SendIcon, SquareIcon } from "lucide-react";
import { useState } from "react";
import { toast } from "sonner";
import type { Session } from "@/lib/events/entities";
import { Button } from "@/components/ui/button";
import { Textarea } from "@/components/ui/textarea";
import { apiFetch, errorMessage, newRequestKey } from "@/components/shared/api-client";

/** Talking to one subagent: a message into its session, and Interrupt while it runs. */
export function SubagentComposer({ conversationId, session, running }: { conversationId: string; session: Session; running: boolean }) {
  const [text, setText] = useState("");
  const [sending, setSending] = useState(false);
  const [interrupting, setInterrupting] = useState(false);

  const send = async () => {
    const message = text.trim();
    if (!message) return;
    setSending(true);
    try {
      await apiFetch(`/api/conversations/${conversationId}/messages`, {
        method: "POST",
        body: { text: message, mode: "auto", session: session.id, requestKey: newRequestKey() },
      });
      setText("");
    } catch (error) {
      toast.error(`Could not send to ${session.agent}: ${errorMessage(error)}`);
    } finally {
      setSending(false);
    }
  };

  const interrupt = async () => {
    setInterrupting(true);
    try {
      await apiFetch(`/api/conversations/${conversationId}/interrupt`, { method: "POST", body: { session: session.id, requestKey: newRequestKey() } });
    } catch (error) {
      toast.error(`Could not interrupt ${session.agent}: ${errorMessage(error)}`);
    } finally {
      setInterrupting(false);
    }
  };

  return (
    <form
      className="flex shrink-0 items-end gap-2 border-t p-3"
      onSubmit={(event) => {
        event.preventDefault();
        void send();
      }}
    >
      <Textarea
        aria-label={`Message to ${session.agent}`}
        placeholder={`Message ${session.agent}…`}
        value={text}
        className="max-h-40 min-h-10"
        onChange={(event) => setText(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
            event.preventDefault();
            void send();
          }
        }}
      />
      {running && (
        <Button type="button" variant="outline" size="icon" aria-label={`Interrupt ${session.agent}`} disabled={interrupting} onClick={() => void interrupt()}>
          {interrupting ? <Loader2Icon className="animate-spin" /> : <SquareIcon />}
        </Button>
      )}
      <Button type="submit" size="icon" aria-label={`Send to ${session.agent}`} disabled={sending || text.trim() === ""}>
        {sending ? <Loader2Icon className="animate-spin" /> : <SendIcon />}
      </Button>
    </form>
  );
}
