"use client";

import { Loader2Icon, MessageCircleQuestionIcon, SendIcon } from "lucide-react";
import { useState } from "react";
import { toast } from "sonner";
import type { Question } from "@/lib/events/entities";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { apiFetch, errorMessage, newRequestKey } from "@/components/shared/api-client";

/** The agent's ask_user question: answer with one of its choices or in your own words. */
export function QuestionPrompt({ question }: { question: Question }) {
  const [text, setText] = useState("");
  const [sending, setSending] = useState<string | null>(null);
  const answer = async (value: string) => {
    if (value.trim() === "") return;
    setSending(value);
    try {
      await apiFetch(`/api/questions/${question.id}/answer`, { method: "POST", body: { text: value, requestKey: newRequestKey() } });
      setText("");
    } catch (error) {
      toast.error(`Could not send the answer: ${errorMessage(error)}`);
    } finally {
      setSending(null);
    }
  };
  return (
    <div role="group" aria-label="Question from the agent" className="grid gap-3 rounded-lg border border-info/40 bg-info/8 p-3">
      <div className="flex items-start gap-2 text-sm">
        <MessageCircleQuestionIcon className="mt-0.5 size-4 shrink-0 text-info" />
        <p className="font-medium whitespace-pre-wrap">{question.question}</p>
      </div>
      {question.choices.length > 0 && (
        <div className="flex flex-wrap gap-2">
          {question.choices.map((choice) => (
            <Button key={choice} size="sm" variant="outline" disabled={sending !== null} onClick={() => answer(choice)}>
              {sending === choice && <Loader2Icon className="animate-spin" />}
              {choice}
            </Button>
          ))}
        </div>
      )}
      <form
        className="flex gap-2"
        onSubmit={(event) => {
          event.preventDefault();
          void answer(text);
        }}
      >
        <Input
          value={text}
          onChange={(event) => setText(event.target.value)}
          placeholder={question.choices.length > 0 ? "Or answer in your own words" : "Your answer"}
          aria-label="Your answer"
          className="h-8 bg-background"
        />
        <Button type="submit" size="sm" disabled={sending !== null || text.trim() === ""}>
          <SendIcon />
          Answer
        </Button>
      </form>
    </div>
  );
}
