import { z } from "zod";

export const approvalPolicySchema = z.enum(["auto", "ask", "deny"]);
export type ApprovalPolicy = z.infer<typeof approvalPolicySchema>;

/** Tools that change the machine ask by default (DESIGN §6); reading is automatic. */
const defaultPolicies: Readonly<Record<string, ApprovalPolicy>> = {
  shell: "ask",
  write_file: "ask",
  edit_file: "ask",
};

/**
 * The agent's own policy wins over the config file, which wins over the defaults. For an MCP
 * tool `mcp__<server>__<tool>` an exact entry wins over the server's `mcp__<server>__*`, and
 * MCP tools ask by default (DESIGN §5): they reach outside Atrium.
 */
export function resolveApprovalPolicy(
  toolName: string,
  agentPolicy?: Readonly<Record<string, ApprovalPolicy>>,
  configPolicy?: Readonly<Record<string, ApprovalPolicy>>,
): ApprovalPolicy {
  const server = mcpServerWildcard(toolName);
  return (
    ownEntry(agentPolicy, toolName) ??
    (server ? ownEntry(agentPolicy, server) : undefined) ??
    ownEntry(configPolicy, toolName) ??
    (server ? ownEntry(configPolicy, server) : undefined) ??
    ownEntry(defaultPolicies, toolName) ??
    (server ? "ask" : "auto")
  );
}

function mcpServerWildcard(toolName: string): string | null {
  const match = /^mcp__(.+?)__/.exec(toolName);
  return match ? `mcp__${match[1]}__*` : null;
}

/** Own keys only, so a tool named "constructor" or "toString" never picks up Object.prototype. */
function ownEntry(
  policies: Readonly<Record<string, ApprovalPolicy>> | undefined,
  toolName: string,
): ApprovalPolicy | undefined {
  if (policies === undefined || !Object.hasOwn(policies, toolName)) return undefined;
  return policies[toolName];
}

/**
 * Where the sandbox is wanted but this machine has none, a shell call asks whatever the
 * policy said (DESIGN §5); a denied call stays denied.
 */
export function askWithoutSandbox(toolName: string, backend: string, policy: ApprovalPolicy): ApprovalPolicy {
  if (toolName === "shell" && backend === "unavailable" && policy === "auto") return "ask";
  return policy;
}
