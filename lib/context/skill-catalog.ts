import type { Skill } from "./skills";
import type { TokenCounter } from "./tokens";

export interface SkillCatalog {
  text: string;
  tokens: number;
  listed: number;
  omitted: number;
}

const HEADER =
  "Skills: instructions for particular tasks, loaded on demand. When a task matches one, call load_skill with its name " +
  "before you start; its files are read with read_file under the folder load_skill names.";

function words(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []);
}

/**
 * The catalog section of the request: every skill's name and description when they fit the
 * budget; past it, the skills whose words the current input shares most come first.
 */
export function skillCatalog(skills: readonly Skill[], input: string, budgetTokens: number, count: TokenCounter): SkillCatalog {
  if (skills.length === 0) return { text: "", tokens: 0, listed: 0, omitted: 0 };
  const lines = skills.map((skill) => ({ skill, line: `- ${skill.name}: ${skill.description.replace(/\s+/g, " ")}` }));
  const headerTokens = count(HEADER) + 1;
  const all = lines.map((entry) => entry.line).join("\n");
  if (headerTokens + count(all) <= budgetTokens) {
    return { text: `${HEADER}\n${all}`, tokens: headerTokens + count(all), listed: skills.length, omitted: 0 };
  }
  const query = words(input);
  const ranked = lines
    .map((entry) => ({ ...entry, overlap: [...words(`${entry.skill.name} ${entry.skill.description}`)].filter((word) => query.has(word)).length }))
    .sort((a, b) => b.overlap - a.overlap || a.skill.name.localeCompare(b.skill.name));
  const omittedNote = (omitted: number) => `(${omitted} more skills not listed; load_skill takes any skill's name.)`;
  let spent = headerTokens + count(omittedNote(skills.length)) + 1;
  const chosen: string[] = [];
  for (const entry of ranked) {
    const cost = count(entry.line) + 1;
    if (spent + cost > budgetTokens) continue;
    chosen.push(entry.line);
    spent += cost;
  }
  const omitted = skills.length - chosen.length;
  const text = `${HEADER}\n${chosen.join("\n")}${chosen.length ? "\n" : ""}${omittedNote(omitted)}`;
  return { text, tokens: count(text), listed: chosen.length, omitted };
}
