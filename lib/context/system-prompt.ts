import path from "node:path";
import type { AgentDefinition } from "../agents/definitions";
import { DEFAULT_AGENT_INSTRUCTIONS } from "../agents/definitions";
import { stampedText } from "./folder-reads";

const AGENTS_FILE_LIMIT = 32 * 1024;

/** Agent instructions and identity, then the working directory's AGENTS.md (DESIGN §4). */
export function buildSystemPrompt(options: {
  agent: AgentDefinition | undefined;
  cwd: string;
  objective?: { text: string; status: string; slices: number; sliceLimit: number } | null;
  memories?: ReadonlyArray<{ title: string; text: string }>;
  /** AGENTS.md as a linked machine read it (DESIGN §10b); undefined: read it here, from cwd. */
  agentsFile?: string | null;
}): string {
  const sections = [
    options.agent?.instructions ?? DEFAULT_AGENT_INSTRUCTIONS,
    `You are the "${options.agent?.name ?? "default"}" agent in Atrium. Working directory: ${options.cwd}`,
  ];
  const agentsFile = options.agentsFile !== undefined ? options.agentsFile : readAgentsFile(options.cwd);
  if (agentsFile) sections.push(`Project instructions from AGENTS.md:\n${agentsFile}`);
  if (options.memories?.length) {
    sections.push(`Your memories (save with remember, delete with forget):\n${options.memories.map((memory) => `- ${memory.title}: ${memory.text}`).join("\n")}`);
  }
  const objective = options.objective;
  if (objective && objective.status === "open") {
    sections.push(
      `Open objective (slice ${objective.slices} of at most ${objective.sliceLimit}): ${objective.text}\n` +
        "Work towards it; call objective_update when it is completed, blocked or should be cancelled.",
    );
  }
  return sections.join("\n\n");
}

function readAgentsFile(cwd: string): string | null {
  const text = stampedText(path.join(cwd, "AGENTS.md"))?.text;
  if (text === undefined) return null;
  return text.length > AGENTS_FILE_LIMIT ? `${text.slice(0, AGENTS_FILE_LIMIT)}\n[AGENTS.md truncated]` : text;
}
