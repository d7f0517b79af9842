import { promises as fs } from "node:fs";
import path from "node:path";
import { projectAgentsFolder } from "../agents/agent-catalog";
import { projectSkillsFolder } from "../context/skills";
import { skillFolderFiles } from "../tools/load-skill";
import { realPathOf } from "../sandbox/real-paths";
import { PROJECT_ENTRIES_LIMIT, PROJECT_FILE_LIMIT, type ProjectAgentFile, type ProjectSkillFile } from "./link-protocol";
import type { MachineRoots } from "./machine-paths";

export interface ProjectFilesAnswer {
  agentsFile: string | null;
  skills: ProjectSkillFile[];
  agents: ProjectAgentFile[];
}

/**
 * What the machine reads of a cwd for the gateway's requests (DESIGN §4, §10b): AGENTS.md,
 * `.atrium/skills/<name>/SKILL.md` with the files beside each, and `.atrium/agents/*.md`.
 * Only files inside the roots (symlinks followed) are read; the gateway parses and checks them.
 */
export async function readProjectFiles(roots: MachineRoots, cwd: string): Promise<ProjectFilesAnswer> {
  const nothing: ProjectFilesAnswer = { agentsFile: null, skills: [], agents: [] };
  if (!path.isAbsolute(cwd) || !roots.contains(cwd)) return nothing;
  // A folder that cannot be read (permissions, a loop of links) reads as an empty project, not as no answer.
  const [agentsFile, skills, agents] = await Promise.all([
    roots.agentsFile(cwd).catch(() => null),
    readSkills(roots, cwd).catch(() => []),
    readAgents(roots, cwd).catch(() => []),
  ]);
  return { agentsFile, skills, agents };
}

async function readSkills(roots: MachineRoots, cwd: string): Promise<ProjectSkillFile[]> {
  const folder = projectSkillsFolder(cwd);
  const names = (await listNames(folder)).slice(0, PROJECT_ENTRIES_LIMIT);
  const skills: ProjectSkillFile[] = [];
  for (const folderName of names) {
    const skillFolder = path.join(folder, folderName);
    const file = path.join(skillFolder, "SKILL.md");
    const text = await readInside(roots, file);
    if (text === null) continue;
    // Listed from the real folder, named by the path the model will use with read_file.
    const files = roots.contains(skillFolder) ? skillFolderFiles(realPathOf(skillFolder)) : [];
    skills.push({ folderName, path: file, text, files });
  }
  return skills;
}

async function readAgents(roots: MachineRoots, cwd: string): Promise<ProjectAgentFile[]> {
  const folder = projectAgentsFolder(cwd);
  const names = (await listNames(folder)).filter((name) => name.endsWith(".md")).slice(0, PROJECT_ENTRIES_LIMIT);
  const agents: ProjectAgentFile[] = [];
  for (const name of names) {
    const file = path.join(folder, name);
    const text = await readInside(roots, file);
    if (text !== null) agents.push({ path: file, text });
  }
  return agents;
}

async function listNames(folder: string): Promise<string[]> {
  return (await fs.readdir(folder).catch(() => [] as string[])).sort();
}

/** A file's text when it lies inside the roots and is a file no larger than the link carries; else null. */
async function readInside(roots: MachineRoots, file: string): Promise<string | null> {
  if (!roots.contains(file)) return null;
  const real = realPathOf(file);
  const stats = await fs.stat(real).catch(() => null);
  if (!stats?.isFile() || stats.size > PROJECT_FILE_LIMIT) return null;
  return fs.readFile(real, "utf8").catch(() => null);
}
