import { z } from "zod";
import type { AnyToolDefinition } from "./tool";
import { LOAD_TOOLS_TOOL_NAME } from "./load-tools";

export interface OfferedTools {
  tools: AnyToolDefinition[];
  /** The catalog section for the system prompt ("" when every schema fits). */
  catalog: string;
  catalogTokens: number;
}

const schemaTexts = new WeakMap<AnyToolDefinition, string>();

export function schemaText(tool: AnyToolDefinition): string {
  let text = schemaTexts.get(tool);
  if (text === undefined) {
    text = `${tool.name}: ${tool.description} ${JSON.stringify(tool.inputJsonSchema ?? z.toJSONSchema(tool.inputSchema))}`;
    schemaTexts.set(tool, text);
  }
  return text;
}

function isMcp(tool: AnyToolDefinition): boolean {
  return tool.name.startsWith("mcp__");
}

/**
 * DESIGN §5: when the MCP tools' schemas exceed the budget, the request carries a catalog
 * (server, tool, one line) and load_tools; tools loaded earlier keep their full schemas.
 */
export function offerTools(
  tools: readonly AnyToolDefinition[],
  loaded: ReadonlySet<string>,
  budgetTokens: number,
  count: (text: string) => number,
): OfferedTools {
  const mcp = tools.filter(isMcp);
  const schemaTokens = mcp.reduce((sum, tool) => sum + count(schemaText(tool)), 0);
  if (schemaTokens <= budgetTokens) {
    return { tools: tools.filter((tool) => tool.name !== LOAD_TOOLS_TOOL_NAME), catalog: "", catalogTokens: 0 };
  }
  const listed = mcp.filter((tool) => !loaded.has(tool.name));
  const lines = listed.map((tool) => {
    const [, server, name] = /^mcp__(.+?)__(.+)$/.exec(tool.name) ?? [];
    const line = tool.description.split("\n")[0].slice(0, 160);
    return `- ${server} / ${name} (${tool.name}): ${line}`;
  });
  const catalog =
    "Tools catalog: more tools than fit are available. Call load_tools with the names you need; their full schemas " +
    `are sent from your next step.\n${lines.join("\n")}`;
  return {
    tools: tools.filter((tool) => !isMcp(tool) || loaded.has(tool.name)),
    catalog: listed.length ? catalog : "",
    catalogTokens: listed.length ? count(catalog) : 0,
  };
}
