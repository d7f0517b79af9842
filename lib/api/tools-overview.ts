import type { Runtime } from "../engine/runtime";
import type { ToolsOverview } from "../events/entities";
import type { ProjectPlace } from "../ports/machine-port";
import { sandboxStatus } from "../sandbox/sandbox-status";
import { resolveApprovalPolicy } from "../tools/approval-policy";

/**
 * GET /api/tools: what the default agent is offered, with the approval each tool gets from the
 * config, and the skills of a project: on a linked machine, as the machine reads them now.
 */
export async function toolsOverview(runtime: Runtime, place: ProjectPlace): Promise<ToolsOverview> {
  if (place.machine && !runtime.machines.isLocal(place.machine)) {
    runtime.machines.get(place.machine); // 404 not_found for a machine that is not there
    await runtime.machines.refreshProject(place.machine, place.cwd);
  }
  const approvals = runtime.config.approvals;
  const extensions = runtime.extensions;
  const offered = [...runtime.context.tools, ...runtime.context.engineTools].filter((tool) => !place.machine || extensions.mcp.offeredOn(tool.name, place.machine));
  const tools: ToolsOverview["tools"] = offered.map((tool) => {
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
    skills: extensions.skills(place).map((skill) => ({ name: skill.name, description: skill.description, source: skill.source, path: skill.path })),
    mcpServers: extensions.servers().map((server) => ({
      ...server,
      // The policy a tool of this server gets unless a per-tool entry says otherwise.
      approval: resolveApprovalPolicy(`mcp__${server.name}__*`, undefined, approvals),
    })),
    sandbox: { ...sandboxStatus(runtime.config.sandbox), writable: [...runtime.config.sandbox.writable] },
  };
}
