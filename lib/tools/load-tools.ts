import { z } from "zod";
import { defineTool, type AnyToolDefinition } from "./tool";

export const LOAD_TOOLS_TOOL_NAME = "load_tools";

/** load_tools(names): the named catalog tools get their full schemas from the next step on (read back from the history). */
export function createLoadToolsTool(known: (machine: string) => readonly AnyToolDefinition[]): AnyToolDefinition {
  return defineTool({
    name: LOAD_TOOLS_TOOL_NAME,
    description:
      "Make tools from the Tools catalog callable: give their names (as listed, e.g. mcp__server__tool). Their full " +
      "schemas are sent from your next step on.",
    inputSchema: z.object({ names: z.array(z.string().min(1)).min(1).max(50) }),
    async execute(input, context) {
      // Only the tools the conversation's machine is offered (a server on another machine is not).
      const names = new Set(known(context.machine ?? "local").map((tool) => tool.name));
      const found = input.names.filter((name) => names.has(name));
      const missing = input.names.filter((name) => !names.has(name));
      if (found.length === 0) return { status: "failed", output: `No such tools: ${missing.join(", ")}. Use names from the Tools catalog.` };
      return {
        status: "completed",
        output: `Loaded ${found.join(", ")}; call them from your next step.${missing.length ? ` Not found: ${missing.join(", ")}.` : ""}`,
      };
    },
  }) as AnyToolDefinition;
}
