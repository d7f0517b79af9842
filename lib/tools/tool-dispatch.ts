import type { Item } from "../events/entities";
import { artifactPreview, readArtifactPage, writeArtifact } from "../context/artifacts";
import { forget, memoryFolder, remember } from "../context/memories";
import { canonicalJson } from "../store/canonical-json";
import { isId } from "../store/ids";
import { listApprovals, listQuestions } from "../store/queries";
import { askWithoutSandbox, resolveApprovalPolicy } from "./approval-policy";
import { runTool } from "./tool";
import { runCollaborationTool } from "../agents/collaboration";
import { runObjectiveTool } from "./objective-tools";
import type { TurnHandle } from "../ports/owner-port";
import { checkpointAfterTool } from "../checkpoints/checkpoint-hooks";
import { toolEnvironment } from "./tool-environment";
import { sandboxBackend } from "../sandbox/sandbox-policy";
import { toolSandbox } from "../sandbox/tool-sandbox";

/**
 * Takes one tool call the model asked for from `waiting` to its outcome: policy,
 * approval (parks the turn), ask_user (parks the turn), or execution.
 */
export async function handleToolCall(runner: TurnHandle, item: Item): Promise<void> {
  const { actor, session } = runner;
  const context = actor.context;
  const name = item.toolName ?? "";
  if (name === "ask_user") return askUser(runner, item);
  if (name === "compact_context") {
    runner.compactRequested = true;
    await actor.completeItem(session, item, { status: "completed", output: "The context will be compacted before your next step." });
    return;
  }
  if (name === "read_artifact") return readArtifact(runner, item);
  if (name === "remember" || name === "forget") {
    const input = (item.input ?? {}) as { title?: unknown; text?: unknown };
    const folder = memoryFolder(context.store.paths.home, session.agent);
    if (typeof input.title !== "string" || input.title.trim() === "") {
      await actor.completeItem(session, item, { status: "failed", output: `Invalid input for ${name}: title: a non-empty string is required` });
    } else if (name === "remember") {
      if (typeof input.text !== "string" || input.text.trim() === "") {
        await actor.completeItem(session, item, { status: "failed", output: "Invalid input for remember: text: a non-empty string is required" });
      } else {
        remember(folder, input.title, input.text);
        await actor.completeItem(session, item, { status: "completed", output: `Remembered "${input.title}".` });
      }
    } else {
      const removed = forget(folder, input.title);
      await actor.completeItem(session, item, {
        status: removed ? "completed" : "failed",
        output: removed ? `Forgot "${input.title}".` : `No memory titled "${input.title}".`,
      });
    }
    return;
  }
  const objectiveResult = await runObjectiveTool(runner, item);
  if (objectiveResult) {
    await actor.completeItem(session, item, objectiveResult);
    return;
  }
  const collaboration = await runCollaborationTool(runner, item);
  if (collaboration) {
    await actor.completeItem(session, item, collaboration);
    return;
  }
  const definition = context.tools.find((tool) => tool.name === name);
  if (!definition) {
    await actor.completeItem(session, item, { status: "failed", output: `Unknown tool "${name}". Use one of the tools listed.` });
    return;
  }
  const agent = context.agent(session.agent, actor.conversation().cwd);
  const sandbox = toolSandbox(context.config.sandbox, context.store.paths.home);
  const policy = askWithoutSandbox(name, sandboxBackend(sandbox), resolveApprovalPolicy(name, agent?.approval, context.config.approvals));
  if (policy === "deny") {
    await actor.completeItem(session, item, { status: "denied", output: `The ${name} tool is not allowed for this agent.` });
    return;
  }
  if (policy === "ask") {
    const decision = await waitForApproval(runner, item);
    if (decision === "aborted" || decision === "refused") return;
    if (decision === "deny") {
      await actor.completeItem(session, item, { status: "denied", output: "The owner denied this tool call." });
      return;
    }
  }
  await runner.markStarted(item);
  const result = await runTool(definition, item.input, {
    cwd: actor.conversation().cwd,
    signal: runner.signal,
    onOutput: (delta) => runner.appendOutput(item, delta),
    env: toolEnvironment(context.config.shell.env),
    agent: session.agent,
    sandbox,
  });
  await checkpointAfterTool(runner, item);
  const limit = context.config.artifactBytes;
  if (Buffer.byteLength(result.output) > limit) {
    // Stored once under artifacts/; the JSONL and the model get a preview and the id.
    const artifactId = context.store.newId();
    writeArtifact(context.store.paths.artifacts(actor.id), artifactId, result.output);
    await actor.completeItem(session, item, {
      status: result.status,
      output: artifactPreview(result.output, artifactId),
      exitCode: result.exitCode ?? null,
      ...(result.sandbox ? { sandbox: result.sandbox } : {}),
      artifactId,
    });
    return;
  }
  await actor.completeItem(session, item, {
    status: result.status,
    output: result.output,
    exitCode: result.exitCode ?? null,
    ...(result.sandbox ? { sandbox: result.sandbox } : {}),
  });
}

async function readArtifact(runner: TurnHandle, item: Item): Promise<void> {
  const { actor, session } = runner;
  const input = (item.input ?? {}) as { id?: unknown; page?: unknown };
  const page = typeof input.page === "number" && Number.isInteger(input.page) ? input.page : 1;
  if (!isId(input.id)) {
    await actor.completeItem(session, item, { status: "failed", output: "Invalid input for read_artifact: id: not an artifact id" });
    return;
  }
  const found = readArtifactPage(actor.context.store.paths.artifacts(actor.id), input.id, page);
  if (!found) {
    await actor.completeItem(session, item, { status: "failed", output: `No artifact ${input.id} in this conversation.` });
    return;
  }
  if (found.text === "" && found.artifact.bytes > 0) {
    await actor.completeItem(session, item, { status: "failed", output: `Artifact ${input.id} has ${found.artifact.pages} pages; page ${page} does not exist.` });
    return;
  }
  const header = `[artifact ${input.id}, page ${page} of ${found.artifact.pages}, ${found.artifact.bytes} bytes in all]\n`;
  await actor.completeItem(session, item, { status: "completed", output: header + found.text });
}

/**
 * Parks the turn until the owner decides. The call runs only the input the approval showed:
 * a call whose own input differs is refused here (completed `denied`), never run.
 */
async function waitForApproval(runner: TurnHandle, item: Item): Promise<"approve" | "deny" | "aborted" | "refused"> {
  const { actor, session } = runner;
  const store = actor.context.store;
  let approval = await actor.requestApproval(runner, item);
  if (approval.status === "pending") {
    const approvalId = approval.id;
    await runner.park("waiting_approval", (wake) => actor.onDecision(approvalId, wake));
    if (runner.signal.aborted) return "aborted";
    approval = listApprovals(store.index, { conversationId: actor.id }).find((candidate) => candidate.id === approvalId)!;
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

async function askUser(runner: TurnHandle, item: Item): Promise<void> {
  const { actor, session } = runner;
  const store = actor.context.store;
  const input = (item.input ?? {}) as { question?: unknown; choices?: unknown };
  if (typeof input.question !== "string" || input.question.trim() === "") {
    await actor.completeItem(session, item, { status: "failed", output: "Invalid input for ask_user: question: a non-empty string is required" });
    return;
  }
  const choices = Array.isArray(input.choices) ? input.choices.filter((choice): choice is string => typeof choice === "string") : [];
  let question = await actor.askQuestion(runner, item, { question: input.question, choices });
  if (question.status === "pending") {
    const questionId = question.id;
    await runner.park("waiting_user", (wake) => actor.onDecision(questionId, wake));
    if (runner.signal.aborted) return;
    question = listQuestions(store.index, { conversationId: actor.id }).find((candidate) => candidate.id === questionId)!;
  }
  await actor.completeItem(session, item, { status: "completed", output: question.answer ?? "" });
}
