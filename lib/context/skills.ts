import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { parseYaml } from "../lazy-packages";
import { folderEntries } from "./folder-reads";

/** The SKILL.md front matter Claude Code, Codex and opencode share; other keys (license, allowed-tools…) are allowed and ignored. */
const skillFrontMatterSchema = z.looseObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, "lowercase letters, digits, - and _, at most 64"),
  description: z.string().trim().min(1).max(1024),
});

export interface Skill {
  name: string;
  description: string;
  /** Where it was found: `$ATRIUM_HOME/skills` or the working directory's `.atrium/skills`. */
  source: "home" | "project";
  /** The skill's folder; files it mentions are relative to it. */
  folder: string;
  /** Absolute path of SKILL.md. */
  path: string;
  body: string;
  /** The files beside SKILL.md, as a linked machine listed them; absent: listed here, from `folder`. */
  files?: string[];
}

export interface SkillProblem {
  path: string;
  message: string;
}

export function homeSkillsFolder(home: string): string {
  return path.join(home, "skills");
}

export function projectSkillsFolder(cwd: string): string {
  return path.join(cwd, ".atrium", "skills");
}

/**
 * The skills a conversation sees: the home folder's, then the project's, which win on a
 * name clash. A bad SKILL.md is reported in `problems` and skipped. The project's are read
 * from `cwd` here, or are `linked`: what the conversation's machine read of its cwd (DESIGN §10b).
 */
export function discoverSkills(
  home: string,
  cwd: string,
  /** Told about a bad file once per version of it, not on every request. */
  log?: (message: string) => void,
  linked?: readonly Skill[],
): { skills: Skill[]; problems: SkillProblem[] } {
  const byName = new Map<string, Skill>();
  const problems: SkillProblem[] = [];
  const project: Parsed[] = linked ? linked.map((skill) => ({ skill })) : readSkillFolder(projectSkillsFolder(cwd), "project", log);
  for (const entry of [...readSkillFolder(homeSkillsFolder(home), "home", log), ...project]) {
    if ("problem" in entry) problems.push(entry.problem);
    else byName.set(entry.skill.name, entry.skill);
  }
  return { skills: [...byName.values()].sort((a, b) => a.name.localeCompare(b.name)), problems };
}

export type Parsed = { skill: Skill } | { problem: SkillProblem };

/** Parsed files by path, kept while the file's size and mtime hold: requests read the catalog every step. */
const parsedFiles = new Map<string, { stamp: string; parsed: Parsed }>();

function readSkillFolder(folder: string, source: Skill["source"], log: ((message: string) => void) | undefined): Parsed[] {
  const names = folderEntries(folder).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
  const results: Parsed[] = [];
  for (const name of names) {
    const file = path.join(folder, name, "SKILL.md");
    const stats = fs.statSync(file, { throwIfNoEntry: false });
    if (!stats) continue;
    const stamp = `${stats.size}:${stats.mtimeMs}:${source}`;
    const cached = parsedFiles.get(file);
    if (cached?.stamp === stamp) {
      results.push(cached.parsed);
      continue;
    }
    const parsed = parseSkillFile(file, name, source);
    parsedFiles.set(file, { stamp, parsed });
    if ("problem" in parsed) log?.(`skill ${file} skipped: ${parsed.problem.message}`);
    results.push(parsed);
  }
  return results;
}

export function parseSkillFile(file: string, folderName: string, source: Skill["source"]): Parsed {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    return { problem: { path: file, message: `cannot be read: ${(error as Error).message}` } };
  }
  return parseSkillText(file, folderName, source, text);
}

/** A SKILL.md's text, wherever it was read (here, or on a linked machine). */
export function parseSkillText(file: string, folderName: string, source: Skill["source"], text: string): Parsed {
  const problem = (message: string): Parsed => ({ problem: { path: file, message } });
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (!match) return problem("missing YAML front matter between --- lines");
  let data: unknown;
  try {
    data = parseYaml(match[1]);
  } catch (error) {
    return problem(`front matter is not valid YAML: ${(error as Error).message}`);
  }
  const result = skillFrontMatterSchema.safeParse(data);
  if (!result.success) {
    const issue = result.error.issues[0];
    return problem(`${issue.path.join(".") || "front matter"}: ${issue.message}`);
  }
  if (result.data.name !== folderName) return problem(`name "${result.data.name}" does not match its folder "${folderName}"`);
  return {
    skill: {
      name: result.data.name,
      description: result.data.description,
      source,
      folder: path.dirname(file),
      path: file,
      body: match[2].trim(),
    },
  };
}

/** The skills an agent may use: all, or those its `skills:` front matter lists. */
export function skillsForAgent(skills: readonly Skill[], allowed: readonly string[] | null | undefined): Skill[] {
  return allowed ? skills.filter((skill) => allowed.includes(skill.name)) : [...skills];
}
