import type { Item } from "../events/entities";

/**
 * Where a step starts: the owner's (or an engine's) message, or the model's reply that
 * follows one. A tool call and its result are one item, so no cut can separate them.
 */
export function startsStep(item: Item, previous: Item | undefined): boolean {
  if (item.kind === "tool_call" || item.kind === "reasoning") return false;
  if (item.kind === "assistant_message") return previous === undefined || previous.kind !== "reasoning";
  return true;
}

/**
 * Picks the first item of the kept tail: the latest step boundary such that the tail
 * holds at least `minimumTail` tokens. Returns null when nothing older would be left to
 * summarize (the whole history is tail).
 */
export function chooseCut(items: readonly Item[], sizes: readonly number[], minimumTail: number): number | null {
  let tail = 0;
  for (let index = items.length - 1; index > 0; index -= 1) {
    tail += sizes[index];
    if (tail >= minimumTail && startsStep(items[index], items[index - 1])) return index;
  }
  return null;
}
