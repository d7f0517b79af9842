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

export const engineTools: readonly AnyToolDefinition[] = [askUserTool as AnyToolDefinition];
