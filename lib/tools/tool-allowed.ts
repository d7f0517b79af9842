/**
 * Whether an agent's `tools:` list allows a tool: by exact name, or `mcp__<server>__*` for all
 * of a server's tools. An agent allowed any MCP tool may also call load_tools, which only
 * makes the catalog's tools callable.
 */
export function toolAllowed(allowed: readonly string[] | null | undefined, toolName: string): boolean {
  if (!allowed) return true;
  if (allowed.includes(toolName)) return true;
  if (toolName === "load_tools") return allowed.some((entry) => entry.startsWith("mcp__"));
  const server = /^mcp__(.+?)__/.exec(toolName);
  return server !== null && allowed.includes(`mcp__${server[1]}__*`);
}
