import type { Item } from "../events/entities";
import { LOAD_SKILL_TOOL_NAME } from "./skill-names";

/**
 * Skills loaded earlier whose load_skill result compaction summarized away: their bodies go
 * back into the request after the summary, like AGENTS.md (DESIGN §4). The latest load of
 * each skill counts; a load still in the kept history is not repeated.
 */
export function compactedSkillLoads(allItems: readonly Item[], kept: readonly Item[]): Array<{ name: string; text: string }> {
  const keptIds = new Set(kept.map((item) => item.id));
  const latest = new Map<string, Item>();
  for (const item of allItems) {
    if (item.kind !== "tool_call" || item.toolName !== LOAD_SKILL_TOOL_NAME || item.status !== "completed") continue;
    const name = (item.input as { name?: unknown } | undefined)?.name;
    if (typeof name === "string") latest.set(name, item);
  }
  return [...latest.entries()]
    .filter(([, item]) => !keptIds.has(item.id))
    .map(([name, item]) => ({ name, text: item.output ?? "" }));
}

export function loadedSkillsSection(loads: ReadonlyArray<{ name: string; text: string }>): string {
  if (loads.length === 0) return "";
  return `Skills you loaded earlier in this conversation (kept across compaction):\n\n${loads.map((load) => load.text).join("\n\n")}`;
}
