import type { Item } from "../events/entities";
import { artifactPreview } from "../context/artifacts";
import { canonicalJson } from "../store/canonical-json";
import { askWithoutSandbox, resolveApprovalPolicy } from "./approval-policy";
import { approvalRulesOf } from "./approval-rules";
import { runTool, type ToolDefinition } from "./tool";
import type { ConversationToolContext } from "./conversation-tool";
import type { TurnHandle } from "../ports/owner-port";
import { checkpointAfterTool } from "../checkpoints/checkpoint-hooks";
import { executeTool } from "./tool-executor";
import { sandboxBackend } from "../sandbox/sandbox-policy";
import { toolSandbox } from "../sandbox/tool-sandbox";

/**
 * Takes one tool call the model asked for from `waiting` to its outcome: a conversation tool
 * (engine-tools) runs at once; any other goes through its policy, the owner's approval (which
 * parks the turn) and then runs, confined.
 */
export async function handleToolCall(runner: TurnHandle, item: Item): Promise<void> {
  const { actor, session } = runner;
  const context = actor.context;
  const name = item.toolName ?? "";
  const conversationTool = context.engineTools.find((tool) => tool.name === name);
  if (conversationTool) {
    // A tool on the conversation itself: parsed by its schema, run through the turn's port, no approval.
    const result = await runTool(conversationTool as ToolDefinition<unknown, ConversationToolContext>, item.input, {
      cwd: actor.conversation().cwd,
      signal: runner.signal,
      onOutput: () => undefined,
      agent: session.agent,
      turn: runner,
      item,
    });
    // A call interrupted while it waited (ask_user parked) is closed with its turn.
    if (result.status === "interrupted" && runner.signal.aborted) return;
    await actor.completeItem(session, item, { status: result.status, output: result.output });
    return;
  }
  const found = context.tools.find((tool) => tool.name === name);
  // A tool of an MCP server on another machine is not this conversation's to call.
  const definition = found && context.extensions?.mcp.offeredOn(name, actor.conversation().machine) !== false ? found : undefined;
  if (!definition) {
    await actor.completeItem(session, item, { status: "failed", output: `Unknown tool "${name}". Use one of the tools listed.` });
    return;
  }
  const agent = context.agent(session.agent, actor.conversation());
  const sandbox = toolSandbox(context.config.sandbox, context.store.paths.home);
  const policy = askWithoutSandbox(name, sandboxBackend(sandbox), resolveApprovalPolicy(name, agent?.approval, context.config.approvals));
  if (policy === "deny") {
    await actor.completeItem(session, item, { status: "denied", output: `The ${name} tool is not allowed for this agent.` });
    return;
  }
  // An "always allow in this project" rule (DESIGN §6) answers for the owner; the sandbox still confines the call,
  // and where there is no sandbox a shell call asks whatever the rules say (DESIGN §5).
  const ruleMayAnswer = policy === "ask" && !(name === "shell" && sandboxBackend(sandbox) === "unavailable");
  const rule = ruleMayAnswer ? approvalRulesOf(context.store.paths.home).match({ machine: actor.conversation().machine, path: actor.conversation().cwd, toolName: name, input: item.input }) : null;
  const allowedBy = rule ? { ruleId: rule.id, tool: rule.tool, commandPrefix: rule.commandPrefix } : undefined;
  if (policy === "ask" && !rule) {
    const decision = await waitForApproval(runner, item);
    if (decision === "aborted" || decision === "refused") return;
    if (decision === "deny") {
      await actor.completeItem(session, item, { status: "denied", output: "The owner denied this tool call." });
      return;
    }
  }
  await runner.markStarted(item);
  const result = await executeTool(runner, item, definition, sandbox);
  await checkpointAfterTool(runner, item);
  const limit = context.config.artifactBytes;
  if (Buffer.byteLength(result.output) > limit) {
    // Stored once under artifacts/; the JSONL and the model get a preview and the id.
    const artifactId = context.store.newId();
    await context.store.files.writeArtifact(actor.id, artifactId, result.output);
    await actor.completeItem(session, item, {
      status: result.status,
      output: artifactPreview(result.output, artifactId),
      exitCode: result.exitCode ?? null,
      ...(result.sandbox ? { sandbox: result.sandbox } : {}),
      ...(allowedBy ? { allowedBy } : {}),
      artifactId,
    });
    return;
  }
  await actor.completeItem(session, item, {
    status: result.status,
    output: result.output,
    exitCode: result.exitCode ?? null,
    ...(result.sandbox ? { sandbox: result.sandbox } : {}),
    ...(allowedBy ? { allowedBy } : {}),
  });
}

/**
 * Parks the turn until the owner decides. The call runs only the input the approval showed:
 * a call whose own input differs is refused here (completed `denied`), never run.
 */
async function waitForApproval(runner: TurnHandle, item: Item): Promise<"approve" | "deny" | "aborted" | "refused"> {
  const { actor, session } = runner;
  let approval = await actor.requestApproval(runner, item);
  if (approval.status === "pending") {
    const approvalId = approval.id;
    await runner.park("waiting_approval", (wake) => actor.onDecision(approvalId, wake));
    if (runner.signal.aborted) return "aborted";
    approval = actor.approval(approvalId)!;
  }
  if (approval.status !== "approved") return "deny";
  if (approval.toolName !== (item.toolName ?? "") || canonicalJson(approval.input) !== canonicalJson(item.input)) {
    await actor.completeItem(session, item, {
      status: "denied",
      output: "Refused: this call's input is not the input the owner approved, so it was not run.",
    });
    return "refused";
  }
  return "approve";
}
