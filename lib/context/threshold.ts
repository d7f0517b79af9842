/** DESIGN §4: compact before a request would reach min(0.8 × window, window − max output), rounded down. */
export function compactionThreshold(contextWindow: number, maxOutputTokens: number): number {
  return Math.floor(Math.min(0.8 * contextWindow, contextWindow - maxOutputTokens));
}

/** The part of the window kept verbatim after a compaction: at least 20 %. */
export function minimumTailTokens(contextWindow: number): number {
  return Math.ceil(0.2 * contextWindow);
}
