import type { Item } from "../events/entities";
import { TurnFailure } from "../context/turn-failure";
import { isMachineDisconnected } from "../ports/machine-port";
import type { TurnHandle } from "../ports/owner-port";
import type { ToolSandbox } from "../sandbox/sandbox-policy";
import { builtinFileAndShellTools } from "./builtin-tools";
import { runTool, type AnyToolDefinition, type ToolResult } from "./tool";
import { toolEnvironment } from "./tool-environment";

/** The tools that act on a machine's files and processes: they run where the conversation's machine is. */
const MACHINE_TOOLS = new Set(builtinFileAndShellTools.map((tool) => tool.name));

export const MACHINE_DISCONNECTED_MESSAGE = "the link to the machine was lost during this call: its effects are unknown; inspect before retrying";

/**
 * The executor seam (DESIGN §10b): one tool call, run by the provider of the conversation's
 * machine. `local` runs the definition here, confined by this host's sandbox; a linked machine
 * gets the call over its link and runs the same definition there, in its own sandbox. A link
 * lost mid-call ends the call `interrupted` and the turn `failed` with machine_disconnected;
 * nothing is retried.
 */
export async function executeTool(runner: TurnHandle, item: Item, definition: AnyToolDefinition, sandbox: ToolSandbox): Promise<ToolResult> {
  const { actor, session } = runner;
  const context = actor.context;
  const conversation = actor.conversation();
  const machines = context.machines;
  try {
    if (!machines || machines.isLocal(conversation.machine) || !MACHINE_TOOLS.has(definition.name)) {
      // Here: the built-in machine's tools, and every tool that is not machine work (an MCP server on a machine relays itself).
      return await runTool(definition, item.input, {
        cwd: conversation.cwd,
        signal: runner.signal,
        onOutput: (delta) => runner.appendOutput(item, delta),
        env: toolEnvironment(context.config.shell.env),
        agent: session.agent,
        machine: conversation.machine,
        sandbox,
      });
    }
    const result = await machines.run(
      conversation.machine,
      { tool: definition.name, input: item.input, cwd: conversation.cwd },
      { signal: runner.signal, onOutput: (delta) => runner.appendOutput(item, delta) },
    );
    // A call that may have changed files may have changed AGENTS.md: the next request reads it again.
    if (definition.name !== "read_file" && definition.name !== "list_dir") await machines.refreshProject(conversation.machine, conversation.cwd);
    return result;
  } catch (error) {
    if (!isMachineDisconnected(error) || !machines) throw error;
    const name = machines.nameOf(conversation.machine);
    // What streamed before the link went is kept, as an interrupt keeps it.
    const streamed = item.output ?? "";
    const output = streamed ? `${streamed}${streamed.endsWith("\n") ? "" : "\n"}[${MACHINE_DISCONNECTED_MESSAGE}]` : `[${MACHINE_DISCONNECTED_MESSAGE}]`;
    await actor.completeItem(session, item, { status: "interrupted", output });
    throw new TurnFailure({ code: "machine_disconnected", message: `machine ${name} disconnected (${error.message}); effects unknown: inspect before retrying` });
  }
}
