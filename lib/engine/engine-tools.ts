import { z } from "zod";
import { defineTool, type AnyToolDefinition } from "../tools/tool";

/**
 * Tools whose effect is on the conversation itself, so the turn runner handles them
 * instead of lib/tools: their execute is never called.
 */
function engineHandled(): never {
  throw new Error("handled by the turn runner");
}

export const askUserTool = defineTool({
  name: "ask_user",
  description:
    "Ask the owner a question and wait for the answer. Use it when you cannot go on without a decision. " +
    "Give `choices` when the answer is one of a few options.",
  inputSchema: z.object({
    question: z.string().min(1).describe("The question, in one or two sentences."),
    choices: z.array(z.string().min(1)).max(10).optional().describe("Possible answers to offer."),
  }),
  execute: engineHandled,
});

export const compactContextTool = defineTool({
  name: "compact_context",
  description:
    "Compact the conversation's context now: older history is replaced by a summary before your next step. " +
    "Use it before a long new phase of work when the context is getting full.",
  inputSchema: z.object({}),
  execute: engineHandled,
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
  execute: engineHandled,
});

export const engineTools: readonly AnyToolDefinition[] = [askUserTool, compactContextTool, readArtifactTool] as AnyToolDefinition[];
