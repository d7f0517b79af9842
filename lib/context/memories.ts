import fs from "node:fs";
import path from "node:path";
import { folderEntries, stampedText } from "./folder-reads";
import { estimateTokens } from "./tokens";

export interface Memory {
  title: string;
  text: string;
  modifiedAt: number;
}

/** An agent's memories are Markdown files under $ATRIUM_HOME/memory/<agent>/, one per memory. */
export function memoryFolder(home: string, agent: string): string {
  return path.join(home, "memory", agent.replace(/[^a-z0-9_-]/gi, "_"));
}

function slug(title: string): string {
  return (
    title
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 80) || "memory"
  );
}

export function remember(folder: string, title: string, text: string): string {
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  const file = path.join(folder, `${slug(title)}.md`);
  fs.writeFileSync(file, `# ${title.trim()}\n\n${text.trim()}\n`, { mode: 0o600 });
  return file;
}

export function forget(folder: string, title: string): boolean {
  const file = path.join(folder, `${slug(title)}.md`);
  if (!fs.existsSync(file)) return false;
  fs.rmSync(file);
  return true;
}

export function readMemories(folder: string): Memory[] {
  const memories: Memory[] = [];
  for (const entry of folderEntries(folder)) {
    if (!entry.name.endsWith(".md")) continue;
    const file = stampedText(path.join(folder, entry.name));
    if (!file) continue;
    const [first, ...rest] = file.text.split("\n");
    const title = first.startsWith("# ") ? first.slice(2).trim() : entry.name.slice(0, -3);
    memories.push({ title, text: (first.startsWith("# ") ? rest.join("\n") : file.text).trim(), modifiedAt: file.modifiedAt });
  }
  return memories;
}

function words(text: string): Set<string> {
  return new Set((text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []));
}

/**
 * The memories to put in context: most relevant to the current input first (shared words),
 * then the most recent, until the token budget is spent.
 */
export function selectMemories(memories: readonly Memory[], input: string, budgetTokens: number): Memory[] {
  const query = words(input);
  const scored = memories.map((memory) => {
    const overlap = [...words(`${memory.title} ${memory.text}`)].filter((word) => query.has(word)).length;
    return { memory, overlap };
  });
  scored.sort((a, b) => b.overlap - a.overlap || b.memory.modifiedAt - a.memory.modifiedAt);
  const chosen: Memory[] = [];
  let spent = 0;
  for (const { memory } of scored) {
    const cost = estimateTokens(`${memory.title}: ${memory.text}`) + 2;
    if (spent + cost > budgetTokens) continue;
    chosen.push(memory);
    spent += cost;
  }
  return chosen;
}
