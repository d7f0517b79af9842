import { z } from "zod";

export const approvalPolicySchema = z.enum(["auto", "ask", "deny"]);
export type ApprovalPolicy = z.infer<typeof approvalPolicySchema>;

/** Tools that change the machine ask by default (DESIGN §6); reading is automatic. */
const defaultPolicies: Readonly<Record<string, ApprovalPolicy>> = {
  shell: "ask",
  write_file: "ask",
  edit_file: "ask",
};

/** The agent's own policy wins over the config file, which wins over the defaults. */
export function resolveApprovalPolicy(
  toolName: string,
  agentPolicy?: Readonly<Record<string, ApprovalPolicy>>,
  configPolicy?: Readonly<Record<string, ApprovalPolicy>>,
): ApprovalPolicy {
  return (
    ownEntry(agentPolicy, toolName) ?? ownEntry(configPolicy, toolName) ?? ownEntry(defaultPolicies, toolName) ?? "auto"
  );
}

/** Own keys only, so a tool named "constructor" or "toString" never picks up Object.prototype. */
function ownEntry(
  policies: Readonly<Record<string, ApprovalPolicy>> | undefined,
  toolName: string,
): ApprovalPolicy | undefined {
  if (policies === undefined || !Object.hasOwn(policies, toolName)) return undefined;
  return policies[toolName];
}
