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

/** Why the figure is what it is: the basis the popover names (DESIGN §4 "the API/UI say which"). */
export function basisExplanation(context: Pick<ContextInfo, "source" | "calibration">): string {
  if (context.source === "reported") return "The provider's count for the last model call, plus an estimate of what was added since, on the provider's scale.";
  if (context.calibration)
    return `An estimate, calibrated against the provider's last count (×${context.calibration.toFixed(2)}): no call has reported since this conversation was loaded, compacted, forked or restarted.`;
  return "An estimate: no model call has reported its input for this conversation yet.";
}

/** The basis in a few words, for the popover's "Figures" row. */
export function basisLabel(context: Pick<ContextInfo, "source" | "calibration">): string {
  if (context.source === "reported") return "reported by the provider";
  return context.calibration ? "calibrated estimate" : "estimate";
}

/**
 * Why the last compaction did or did not shrink the context: the summary replaces only the
 * older history, and the most recent part (at least 20 % of the window) is always kept.
 */
export function compactionExplanation(context: Pick<ContextInfo, "contextWindow" | "lastCompaction">): string | null {
  const last = context.lastCompaction;
  if (!last) return null;
  const kept = Math.floor(context.contextWindow * 0.2);
  const saved = last.tokensBefore - last.tokensAfter;
  if (saved <= last.tokensBefore * 0.1)
    return `It shrank little: the most recent part, at least 20 % of the window (${kept.toLocaleString("en-US")} tokens), is always kept, and only what is older is summarized.`;
  return `The older history was replaced by a summary (${saved.toLocaleString("en-US")} tokens fewer); the most recent 20 % of the window is always kept.`;
}
