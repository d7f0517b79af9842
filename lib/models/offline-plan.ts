import { createHash } from "node:crypto";
import type { LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { scanDirectives, type Directive } from "./directives";
import {
  firstLine,
  isCompactionRequest,
  readTurnInput,
  summarizeForCompaction,
  toolOutputText,
} from "./offline-prompt";

export const TURN_ID_HEADER = "x-atrium-turn-id";

export type OfflineReply =
  | { kind: "tool-call"; toolName: string; input: string }
  | { kind: "text"; text: string; reasoningWords: number };

export interface OfflinePlan {
  reply: OfflineReply;
  delayMs: number;
  failure: { status: number; count: number } | null;
  /** Identifies the turn so `[[fail:S*N]]` counts calls across its steps and retries. */
  turnKey: string;
}

/** Decides what one model call answers, from the prompt alone (DESIGN §7). */
export function planReply(options: LanguageModelV3CallOptions): OfflinePlan {
  const { prompt } = options;
  const turn = readTurnInput(prompt);
  const turnKey = turnIdHeader(options.headers) ?? hashTurn(turn.messageIndex, turn.text);
  if (isCompactionRequest(prompt)) {
    // Directives belong to the conversation being summarized, not to the summary request.
    return {
      reply: { kind: "text", text: summarizeForCompaction(prompt), reasoningWords: 0 },
      delayMs: 0,
      failure: null,
      turnKey,
    };
  }

  const { directives, text } = scanDirectives(turn.text);
  const tools = directives.filter((directive) => directive.kind === "tool");
  const delay = last(directives, "delay");
  const fail = last(directives, "fail");
  const plan = {
    delayMs: delay?.milliseconds ?? 0,
    failure: fail ? { status: fail.status, count: fail.count } : null,
    turnKey,
  };

  const nextTool = tools[turn.toolResults.length];
  if (nextTool !== undefined) {
    return { ...plan, reply: { kind: "tool-call", toolName: nextTool.name, input: nextTool.input } };
  }

  const lastResult = turn.toolResults.at(-1);
  const answer =
    tools.length > 0 && lastResult !== undefined
      ? `Tool ${lastResult.toolName} returned: ${firstLine(toolOutputText(lastResult.output))}`
      : `You said: ${text}`;
  const extraWords = Array.from({ length: last(directives, "stream")?.words ?? 0 }, (_, index) => `w${index + 1}`);
  return {
    ...plan,
    reply: {
      kind: "text",
      text: [answer.trimEnd(), ...extraWords].join(" "),
      reasoningWords: last(directives, "reason")?.words ?? 0,
    },
  };
}

function last<Kind extends Directive["kind"]>(
  directives: Directive[],
  kind: Kind,
): Extract<Directive, { kind: Kind }> | undefined {
  return directives.findLast((directive): directive is Extract<Directive, { kind: Kind }> => directive.kind === kind);
}

function turnIdHeader(headers: LanguageModelV3CallOptions["headers"]): string | undefined {
  if (headers === undefined) return undefined;
  const entry = Object.entries(headers).find(([name]) => name.toLowerCase() === TURN_ID_HEADER);
  return entry?.[1] || undefined;
}

function hashTurn(messageIndex: number, text: string): string {
  return createHash("sha256").update(`${messageIndex}\n${text}`).digest("hex");
}
