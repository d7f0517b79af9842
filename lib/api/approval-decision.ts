import type { Runtime } from "../engine/runtime";
import { AtriumError } from "../errors";
import type { Approval } from "../events/entities";
import { getApproval } from "../store/queries";
import { approvalRulesOf, commandMatchesPrefix, type ApprovalRule } from "../tools/approval-rules";
import type { rememberRule } from "./schemas";
import type { z } from "zod";

type Remember = z.infer<typeof rememberRule>;

/**
 * POST /api/approvals/:id with `remember`: the rule is stored for the conversation's project
 * (machine + folder) before the decision wakes the turn, so the turn's next matching call
 * already runs without asking; a decision that fails takes a rule it just made back.
 */
export async function decideAndRemember(runtime: Runtime, approvalId: string, remember: Remember, requestKey?: string): Promise<{ approval: Approval; rule: ApprovalRule }> {
  const pending = getApproval(runtime.store.index, approvalId);
  if (!pending) throw new AtriumError("not_found", `no approval ${approvalId}`);
  if (remember.tool !== pending.toolName) throw new AtriumError("bad_request", `remember.tool must be the approved tool (${pending.toolName})`);
  const prefix = remember.commandPrefix ?? null;
  if (prefix !== null) {
    const command = (pending.input as { command?: unknown } | null)?.command;
    if (pending.toolName !== "shell" || typeof command !== "string") throw new AtriumError("bad_request", "a command prefix applies to shell calls only");
    if (!commandMatchesPrefix(command, prefix)) throw new AtriumError("bad_request", "the command prefix must begin the command being approved (and the command must not chain others)");
  }
  const conversation = runtime.getConversation(pending.conversationId);
  const rules = approvalRulesOf(runtime.store.paths.home);
  const before = new Set((await rules.list()).map((known) => known.id));
  const rule = await rules.add({ machine: conversation.machine, path: conversation.cwd, tool: remember.tool, commandPrefix: prefix }, runtime.store.now());
  try {
    return { approval: await runtime.decideApproval(approvalId, "approve", requestKey), rule };
  } catch (error) {
    if (!before.has(rule.id)) await rules.remove(rule.id);
    throw error;
  }
}
