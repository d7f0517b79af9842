import type {
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  LanguageModelV3ToolResultOutput,
  LanguageModelV3ToolResultPart,
} from "@ai-sdk/provider";

/** The first line of the instruction the context layer sends when it asks for a compaction summary. */
export const COMPACTION_MARKER = "You are compacting a conversation.";
const SUMMARY_PREFIX = "Summary: ";

export interface TurnInput {
  /** The text of the last user message (text parts joined), directives included. */
  text: string;
  /** Index of that message in the prompt, -1 when there is none. */
  messageIndex: number;
  /** Tool results that came back after that message, oldest first. */
  toolResults: LanguageModelV3ToolResultPart[];
}

export function readTurnInput(prompt: LanguageModelV3Prompt): TurnInput {
  const messageIndex = prompt.findLastIndex((message) => message.role === "user");
  const message = prompt[messageIndex];
  const text = message === undefined ? "" : messageText(message);
  const toolResults = prompt.slice(messageIndex + 1).flatMap((later) => {
    if (later.role !== "tool" && later.role !== "assistant") return [];
    return later.content.filter((part): part is LanguageModelV3ToolResultPart => part.type === "tool-result");
  });
  return { text, messageIndex, toolResults };
}

export function isCompactionRequest(prompt: LanguageModelV3Prompt): boolean {
  return prompt.some(isCompactionInstruction);
}

/**
 * `Summary: ` and the first line of every user message other than the
 * instruction; a line that is itself an earlier summary contributes its body,
 * so repeated compactions stay one flat list.
 */
export function summarizeForCompaction(prompt: LanguageModelV3Prompt): string {
  const lines = prompt
    .filter((message) => message.role === "user" && !isCompactionInstruction(message))
    .map((message) => firstLine(messageText(message)))
    .map((line) => (line.startsWith(SUMMARY_PREFIX) ? line.slice(SUMMARY_PREFIX.length).trim() : line))
    .filter((line) => line !== "");
  return `${SUMMARY_PREFIX}${lines.join("; ")}`.trim();
}

export function toolOutputText(output: LanguageModelV3ToolResultOutput): string {
  switch (output.type) {
    case "text":
    case "error-text":
      return output.value;
    case "json":
    case "error-json":
      return JSON.stringify(output.value);
    case "execution-denied":
      return output.reason ?? "execution denied";
    case "content":
      return output.value
        .flatMap((item) => (item.type === "text" ? [item.text] : []))
        .join("\n");
  }
}

export function firstLine(text: string): string {
  return text.split("\n", 1)[0].trim();
}

/** Four characters per token: the offline model has no tokenizer, and the context ring marks this as an estimate. */
export function estimatePromptTokens(prompt: LanguageModelV3Prompt): number {
  const characters = prompt.reduce((total, message) => total + messageCharacters(message), 0);
  return Math.ceil(characters / 4);
}

function messageCharacters(message: LanguageModelV3Message): number {
  if (message.role === "system") return message.content.length;
  let characters = 0;
  for (const part of message.content) {
    if (part.type === "text" || part.type === "reasoning") characters += part.text.length;
    else if (part.type === "tool-call") characters += JSON.stringify(part.input ?? null).length;
    else if (part.type === "tool-result") characters += toolOutputText(part.output).length;
  }
  return characters;
}

function isCompactionInstruction(message: LanguageModelV3Message): boolean {
  if (message.role === "system") return message.content.startsWith(COMPACTION_MARKER);
  return message.role === "user" && messageText(message).startsWith(COMPACTION_MARKER);
}

function messageText(message: LanguageModelV3Message): string {
  if (message.role === "system") return message.content;
  return message.content
    .flatMap((part) => (part.type === "text" ? [part.text] : []))
    .join("\n");
}
