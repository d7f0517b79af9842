import { z } from "zod";
import { defineTool, type AnyToolDefinition } from "./tool";
import { askUser, compactContext, forgetMemory, readArtifact, rememberMemory } from "./conversation-tools";
import { updateObjective, waitForEvent } from "./objective-tools";
import { inspectAgent, interruptAgent, sendToAgent, spawnAgent, waitAgents } from "../agents/collaboration";

/**
 * Tools whose effect is on the conversation itself, each declared once: its schema (what the
 * model sees, and what parses its input) and its execute, which acts through the running
 * turn's port (ConversationToolContext). Tool dispatch runs them without an approval.
 */

export const askUserTool = defineTool({
  name: "ask_user",
  description:
    "Ask the owner a question and wait for the answer. Use it when you cannot go on without a decision. " +
    "Give `choices` when the answer is one of a few options.",
  inputSchema: z.object({
    question: z.string().min(1).describe("The question, in one or two sentences."),
    choices: z.array(z.string().min(1)).max(10).optional().describe("Possible answers to offer."),
  }),
  execute: askUser,
});

export const compactContextTool = defineTool({
  name: "compact_context",
  description:
    "Compact the conversation's context now: older history is replaced by a summary before your next step. " +
    "Use it before a long new phase of work when the context is getting full.",
  inputSchema: z.object({}),
  execute: compactContext,
});

export const readArtifactTool = defineTool({
  name: "read_artifact",
  description:
    "Read a page of a large tool output that was stored as an artifact (its id is in the output preview). " +
    "Pages are about 64 KiB and start at 1.",
  inputSchema: z.object({
    id: z.string().describe("The artifact id from the preview."),
    page: z.number().int().min(1).optional().describe("Page number, from 1 (default 1)."),
  }),
  execute: readArtifact,
});

const SPAWN_DESCRIPTION =
  "Start a subagent in this conversation on a task and get its agentId at once. It works in the same directory " +
  "with its own context (the task, plus your finished history when `history` is true) and reports back each time " +
  "it finishes a turn. Name an agent from the list below, or leave `agent` out for the default one.";

export const spawnAgentTool = defineTool({
  name: "spawn_agent",
  description: SPAWN_DESCRIPTION,
  inputSchema: z.object({
    task: z.string().min(1).describe("What the subagent should do, self-contained."),
    agent: z.string().optional().describe("The agent definition to use."),
    history: z.boolean().optional().describe("Give the subagent your finished history as context."),
  }),
  execute: spawnAgent,
});

/** spawn_agent's description lists the defined agents, so the model can pick one. */
export function spawnAgentFor(agents: ReadonlyArray<{ name: string; description: string }>): AnyToolDefinition {
  const listing = agents.map((agent) => `- ${agent.name}: ${agent.description}`).join("\n");
  return { ...(spawnAgentTool as AnyToolDefinition), description: `${SPAWN_DESCRIPTION}\nAgents:\n${listing}` };
}

export const sendMessageTool = defineTool({
  name: "send_message",
  description: "Send a message to one of your subagents: it joins its running turn, or starts a new one when it is idle.",
  inputSchema: z.object({ agentId: z.string(), text: z.string().min(1) }),
  execute: sendToAgent,
});

export const waitAgentsTool = defineTool({
  name: "wait_agents",
  description: "Wait until the listed subagents report (each finishes a turn), or until timeoutMs passes; returns their reports.",
  inputSchema: z.object({ ids: z.array(z.string()).min(1), timeoutMs: z.number().int().positive().optional() }),
  execute: waitAgents,
});

export const interruptAgentTool = defineTool({
  name: "interrupt_agent",
  description: "Interrupt a subagent's running turn.",
  inputSchema: z.object({ agentId: z.string() }),
  execute: interruptAgent,
});

export const inspectAgentTool = defineTool({
  name: "inspect_agent",
  description: "See a subagent's status, current turn, last items and usage.",
  inputSchema: z.object({ agentId: z.string() }),
  execute: inspectAgent,
});



export const objectiveUpdateTool = defineTool({
  name: "objective_update",
  description:
    "Report on the conversation's open objective: `completed` when the outcome is reached, `blocked` (with a note " +
    "saying why) when you cannot go on, `cancelled` when it no longer makes sense. Slices stop once it is not open.",
  inputSchema: z.object({
    status: z.enum(["completed", "blocked", "cancelled"]),
    note: z.string().max(2000).optional(),
  }),
  execute: updateObjective,
});

export const waitForEventTool = defineTool({
  name: "wait_for_event",
  description:
    "Park the open objective until an outside event arrives, then continue it with the event. source: \"github\". " +
    "match: fields the webhook must have, e.g. {\"event\":\"pull_request\",\"action\":\"closed\",\"repository.full_name\":\"o/r\"} " +
    "(dotted paths into the payload; `event` is the X-GitHub-Event name).",
  inputSchema: z.object({
    source: z.literal("github"),
    match: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  }),
  execute: waitForEvent,
});



export const rememberTool = defineTool({
  name: "remember",
  description:
    "Save a short memory for future conversations with this agent (a fact about the owner, the project or a decision). " +
    "Saving under an existing title replaces it.",
  inputSchema: z.object({ title: z.string().min(1).max(120), text: z.string().min(1).max(4000) }),
  execute: rememberMemory,
});

export const forgetTool = defineTool({
  name: "forget",
  description: "Delete a saved memory by its title.",
  inputSchema: z.object({ title: z.string().min(1).max(120) }),
  execute: forgetMemory,
});

export const engineTools: readonly AnyToolDefinition[] = [
  askUserTool,
  compactContextTool,
  readArtifactTool,
  spawnAgentTool,
  sendMessageTool,
  waitAgentsTool,
  interruptAgentTool,
  inspectAgentTool,
  objectiveUpdateTool,
  waitForEventTool,
  rememberTool,
  forgetTool,
] as AnyToolDefinition[];
