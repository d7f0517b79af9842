import type { ContextInfo } from "@/lib/events/entities";

export type ContextTone = "normal" | "near" | "at";

/**
 * The ring's figures on one basis, the context window, for the label, the ring and the popover
 * alike; the colour steps follow the distance to the compaction threshold, not the window.
 */
export function contextFigures(context: ContextInfo) {
  const window = Math.max(1, context.contextWindow);
  const fraction = Math.min(1, Math.max(0, context.usedTokens / window));
  const ofThreshold = context.usedTokens / Math.max(1, context.threshold);
  const tone: ContextTone = ofThreshold >= 0.95 ? "at" : ofThreshold >= 0.75 ? "near" : "normal";
  return {
    fraction,
    percent: Math.round(fraction * 100),
    thresholdPercent: Math.round((context.threshold / window) * 100),
    tone,
  };
}
