import type { LanguageModelV3 } from "@ai-sdk/provider";
import type { ModelMessage } from "ai";
import type { Item } from "../events/entities";
import { aiSdk } from "../lazy-packages";
import { chooseCut } from "./cut";
import { minimumTailTokens } from "./threshold";

/** The offline model recognises a compaction request by this first line (DESIGN §4). */
export const COMPACTION_INSTRUCTION = [
  "You are compacting a conversation.",
  "Write a cumulative summary of everything above, including any earlier summary, so that the conversation can go on",
  "from the summary alone: the owner's goals and decisions, what was done and found, files and commands involved,",
  "open questions and the next steps. Tool outputs stored as artifacts are referenced by their artifact id; do not",
  "ask for them again. Answer with the summary only.",
].join("\n");

export interface CompactionPoint {
  itemId: string;
  firstKeptItemId: string | null;
}

/** What the model sees of a session: the latest summary, then the kept tail and everything after it. */
export function contextItems(items: readonly Item[], point: CompactionPoint | null): Item[] {
  if (!point) return [...items];
  const summaryIndex = items.findIndex((item) => item.id === point.itemId);
  if (summaryIndex === -1) return [...items];
  const keptIndex = point.firstKeptItemId ? items.findIndex((item) => item.id === point.firstKeptItemId) : summaryIndex + 1;
  const from = keptIndex === -1 ? summaryIndex + 1 : keptIndex;
  return [items[summaryIndex], ...items.slice(from).filter((item) => item.id !== point.itemId)];
}

export interface CompactionPlan {
  head: Item[];
  firstKept: Item;
}

/** Splits the context into the part to summarize and the tail kept verbatim (≥ 20 % of the window, whole steps). */
export function planCompaction(items: readonly Item[], sizeOf: (item: Item) => number, contextWindow: number): CompactionPlan | null {
  const sizes = items.map(sizeOf);
  const cut = chooseCut(items, sizes, minimumTailTokens(contextWindow));
  if (cut === null) return null;
  return { head: items.slice(0, cut), firstKept: items[cut] };
}

/** One call to the compact model; its answer is stored as the summary, verbatim. */
export async function requestSummary(options: {
  model: LanguageModelV3;
  head: ModelMessage[];
  signal: AbortSignal;
  headers?: Record<string, string>;
  maxOutputTokens?: number;
}): Promise<string> {
  const result = await aiSdk().generateText({
    model: options.model,
    messages: [...options.head, { role: "user", content: COMPACTION_INSTRUCTION }],
    abortSignal: options.signal,
    headers: options.headers,
    maxOutputTokens: options.maxOutputTokens,
    maxRetries: 2,
  });
  const text = result.text.trim();
  if (text === "") throw new Error("the compact model returned an empty summary");
  return text;
}
