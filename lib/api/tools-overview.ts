import type { Runtime } from "../engine/runtime";
import type { ToolsOverview } from "../events/entities";
import { sandboxStatus } from "../sandbox/sandbox-status";
import { resolveApprovalPolicy } from "../tools/approval-policy";

/** GET /api/tools: what the default agent is offered, with the approval each tool gets from the config. */
export function toolsOverview(runtime: Runtime, cwd: string): ToolsOverview {
  const approvals = runtime.config.approvals;
  const extensions = runtime.extensions;
  const tools: ToolsOverview["tools"] = [...runtime.context.tools, ...runtime.context.engineTools].map((tool) => {
    const origin = extensions.mcp.origin(tool.name);
    return {
      name: tool.name,
      source: origin ? "mcp" : "builtin",
      ...(origin ? { server: origin.server } : {}),
      approval: resolveApprovalPolicy(tool.name, undefined, approvals),
      description: tool.description.split("\n")[0],
    };
  });
  return {
    tools,
    skills: extensions.skills(cwd).map((skill) => ({ name: skill.name, description: skill.description, source: skill.source, path: skill.path })),
    mcpServers: extensions.servers().map((server) => ({
      ...server,
      // The policy a tool of this server gets unless a per-tool entry says otherwise.
      approval: resolveApprovalPolicy(`mcp__${server.name}__*`, undefined, approvals),
    })),
    sandbox: { ...sandboxStatus(runtime.config.sandbox), writable: [...runtime.config.sandbox.writable] },
  };
}
