import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { LOAD_SKILL_TOOL_NAME } from "../context/skill-names";
import { skillsForAgent, type Skill } from "../context/skills";
import type { ProjectPlace } from "../ports/machine-port";
import { defineTool, type AnyToolDefinition } from "./tool";

const FILE_LISTING_LIMIT = 50;

export interface LoadSkillOptions {
  /** The skills of a project, read on its machine. */
  skills(place: ProjectPlace): Skill[];
  /** The `skills:` list of the calling agent, or null for all. */
  allowedSkills(agent: string | undefined, place: ProjectPlace): readonly string[] | null;
}

/** load_skill(name): the skill's instructions as the tool result, with its folder so read_file can reach its files. */
export function createLoadSkillTool(options: LoadSkillOptions): AnyToolDefinition {
  return defineTool({
    name: LOAD_SKILL_TOOL_NAME,
    description:
      "Load a skill listed in the Skills catalog: returns its instructions. Files the skill mentions are relative to the " +
      "skill's folder, which the result names; read them with read_file using that folder's absolute path.",
    inputSchema: z.object({ name: z.string().min(1).describe("The skill's name as listed.") }),
    async execute(input, context) {
      const place = { cwd: context.cwd, machine: context.machine };
      const visible = skillsForAgent(options.skills(place), options.allowedSkills(context.agent, place));
      const skill = visible.find((candidate) => candidate.name === input.name);
      if (!skill) {
        const names = visible.map((candidate) => candidate.name);
        return {
          status: "failed",
          output: `No skill named "${input.name}".${names.length ? ` Skills available: ${names.slice(0, 50).join(", ")}` : " No skills are available."}`,
        };
      }
      return { status: "completed", output: skillText(skill) };
    },
  }) as AnyToolDefinition;
}

export function skillText(skill: Skill): string {
  const files = skill.files ?? skillFolderFiles(skill.folder);
  const listing = files.length
    ? `\nFiles in the skill's folder (read with read_file by absolute path):\n${files.map((file) => `- ${path.join(skill.folder, file)}`).join("\n")}`
    : "";
  return `<skill name="${skill.name}" folder="${skill.folder}">\n${skill.body}\n</skill>\nPaths in this skill are relative to ${skill.folder}.${listing}`;
}

/** The files of a skill's folder beside SKILL.md, relative to it: three levels deep, at most 50. */
export function skillFolderFiles(folder: string): string[] {
  const found: string[] = [];
  const walk = (relative: string, depth: number) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(folder, relative), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (found.length >= FILE_LISTING_LIMIT) return;
      const child = path.join(relative, entry.name);
      if (entry.isDirectory() && depth < 3) walk(child, depth + 1);
      else if (entry.isFile() && child !== "SKILL.md") found.push(child);
    }
  };
  walk("", 0);
  return found;
}
