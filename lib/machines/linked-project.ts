import path from "node:path";
import { parseAgentFile, type AgentDefinition } from "../agents/definitions";
import { parseSkillText, type Skill } from "../context/skills";
import type { LinkedProject } from "../ports/machine-port";
import type { ProjectFilesAnswer } from "./machine-project";

/**
 * The gateway's reading of the project files a machine sent (DESIGN §4, §10b): parsed and
 * checked here with the same rules as a local project's, since nothing that arrives over a
 * link is trusted. A bad file is skipped and reported once per path and problem.
 */
export function parseLinkedProject(answer: ProjectFilesAnswer, report: (path: string, message: string) => void): LinkedProject {
  const skills = new Map<string, Skill>();
  for (const entry of answer.skills) {
    if (!path.posix.isAbsolute(entry.path) || path.posix.basename(entry.path) !== "SKILL.md") continue;
    const parsed = parseSkillText(entry.path, entry.folderName, "project", entry.text);
    if ("problem" in parsed) report(parsed.problem.path, parsed.problem.message);
    else skills.set(parsed.skill.name, { ...parsed.skill, files: entry.files.filter(isRelativeInside) });
  }
  const agents = new Map<string, AgentDefinition>();
  for (const entry of answer.agents) {
    if (!path.posix.isAbsolute(entry.path) || !entry.path.endsWith(".md")) continue;
    const parsed = parseAgentFile(entry.path, entry.text);
    if ("problem" in parsed) report(entry.path, parsed.problem);
    // As locally: the built-in default stays unless the project has its own default.md.
    else if (parsed.agent.name !== "default" || path.posix.basename(entry.path) === "default.md") agents.set(parsed.agent.name, parsed.agent);
  }
  return { agentsFile: answer.agentsFile, skills: [...skills.values()], agents: [...agents.values()] };
}

/** A listed skill file must stay in the skill's folder: relative, no `..`. */
function isRelativeInside(file: string): boolean {
  return file !== "" && !path.posix.isAbsolute(file) && !file.split("/").includes("..");
}
