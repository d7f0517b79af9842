import type { Approval, Conversation, Item, Question, Turn, Waiting } from "../events/entities";

/** One-line texts for what the chat client shows; the renderer decides when and how they are painted. */

export function preview(text: string, limit: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= limit ? flat : `${flat.slice(0, limit - 1)}…`;
}

/** A tool's input as compact JSON (a string as it came); `undefined` (no input yet) shows as nothing. */
export function formatInput(input: unknown, limit = 200): string {
  if (input === undefined) return "";
  if (typeof input === "string") return preview(input, limit);
  let json: string;
  try {
    json = JSON.stringify(input) ?? String(input);
  } catch {
    json = String(input);
  }
  return preview(json, limit);
}

export function formatConversation(conversation: Conversation): string {
  const title = conversation.title.trim() === "" ? "(untitled)" : conversation.title;
  const effort = conversation.effort ? `, effort ${conversation.effort}` : "";
  return `${title} — ${conversation.id} · ${conversation.agent} on ${conversation.model}${effort} · ${conversation.status}`;
}

const WAITING: Partial<Record<Turn["status"], string>> = {
  waiting_approval: "waiting for approval",
  waiting_user: "waiting for an answer",
};

/** `started`: a turn.started event; `in progress`: a turn found running on attach; `updated`: its status changed. */
export function formatTurnState(turn: Turn, event: "started" | "in progress" | "updated"): string {
  const waiting = WAITING[turn.status];
  if (event === "updated") return waiting ? `turn ${waiting}` : "turn resumed";
  const effort = turn.effort ? `, effort ${turn.effort}` : "";
  return `turn ${event} · ${turn.model}${effort}${waiting ? ` · ${waiting}` : ""}`;
}

export function formatTurnEnded(turn: Turn): string {
  const parts = [`turn ended: ${turn.status}`];
  // An owner's interrupt carries its own notice as the error; only other causes are news.
  if (turn.error && !(turn.status === "interrupted" && turn.error.code === "interrupted")) {
    parts.push(`${turn.error.code}: ${turn.error.message}`);
  }
  if (turn.usage.inputTokens + turn.usage.outputTokens > 0) parts.push(`${turn.usage.inputTokens} in / ${turn.usage.outputTokens} out tokens`);
  return parts.join(" · ");
}

export function formatRetry(event: { attempt: number; delayMs: number; error: { code: string; message: string } }): string {
  const seconds = (event.delayMs / 1000).toFixed(event.delayMs < 10_000 ? 1 : 0);
  return `model call failed (${event.error.code}: ${preview(event.error.message, 120)}); retry ${event.attempt} in ${seconds} s`;
}

export function formatWaiting(waiting: Waiting[]): string {
  if (waiting.length === 0) return "nothing waiting";
  const entries = waiting.map((message) => `${message.mode} "${preview(message.text, 40)}"`);
  return `waiting (${waiting.length}): ${entries.join(", ")}`;
}

export function formatApproval(approval: Approval): string[] {
  return [
    `approval needed: ${approval.toolName} ${formatInput(approval.input)}`,
    `  /approve ${approval.id}   or   /deny ${approval.id}`,
  ];
}

export function formatQuestion(question: Question): string[] {
  const choices = question.choices.length > 0 ? `  (choices: ${question.choices.join(", ")})` : "";
  return [`question: ${question.question}${choices}`, `  /answer ${question.id} <your answer>`];
}

/** The label before an item's text; subagent sessions are tagged with their agent's name. */
export function itemLabel(item: Item, agentTag: string): string {
  switch (item.kind) {
    case "user_message":
      return `${agentTag}${item.origin && item.origin !== "owner" ? item.origin : "you"}`;
    case "assistant_message":
      return `${agentTag}assistant`;
    case "reasoning":
      return `${agentTag}thinking`;
    case "tool_call":
      return `${agentTag}tool ${item.toolName ?? "?"}`;
    case "notice":
      return `${agentTag}notice`;
    case "subagent_report":
      return `${agentTag}report`;
    case "compaction_summary":
      return `${agentTag}summary`;
  }
}

/** What streams into an item: a tool call's output, every other kind's text. */
export function itemContent(item: Item): string {
  return (item.kind === "tool_call" ? item.output : item.text) ?? "";
}

export function isSettled(item: Item): boolean {
  return item.status !== "streaming" && item.status !== "waiting";
}
