import { z } from "zod";
import type { SandboxBackend, ToolSandbox } from "../sandbox/sandbox-policy";

export interface ToolContext {
  /** The conversation's working directory; relative paths resolve against it. */
  cwd: string;
  /** Aborted on interrupt: tools stop promptly and kill what they started. */
  signal: AbortSignal;
  /** Receives output as it is produced, before the tool finishes. */
  onOutput(delta: string): void;
  /** The environment of processes the tool starts; defaults to toolEnvironment() without extra names. */
  env?: Record<string, string>;
  /** The calling session's agent, for tools that depend on it (load_skill and the agent's `skills:`). */
  agent?: string;
  /** The conversation's machine (DESIGN §10b), for tools that read its project (load_skill); absent: `local`. */
  machine?: string;
  /** The confinement of processes and file paths (DESIGN §5); absent: none, as in tool unit tests. */
  sandbox?: ToolSandbox;
}

export type ToolStatus = "completed" | "failed" | "interrupted";

export interface ToolResult {
  status: ToolStatus;
  output: string;
  exitCode?: number | null;
  /** How the process the tool started was confined, for the item (shell and MCP stdio calls). */
  sandbox?: SandboxBackend;
}

export interface ToolDefinition<Input, Context extends ToolContext = ToolContext> {
  name: string;
  description: string;
  inputSchema: z.ZodType<Input>;
  /** Sent to the model instead of inputSchema's conversion: an MCP server's own JSON Schema. */
  inputJsonSchema?: Record<string, unknown>;
  execute(input: Input, context: Context): Promise<ToolResult>;
}

/** A tool of any input, as held in catalogs; input is checked by runTool before execute sees it. */
export type AnyToolDefinition = ToolDefinition<unknown>;

export function defineTool<Input, Context extends ToolContext = ToolContext>(definition: ToolDefinition<Input, Context>): ToolDefinition<Input, Context> {
  return definition;
}

/**
 * Runs a tool on input that came from the model. Never throws: bad input and
 * errors become failed results, so the model can read them and try again.
 */
export async function runTool<Input, Context extends ToolContext>(
  definition: ToolDefinition<Input, Context>,
  rawInput: unknown,
  context: Context,
): Promise<ToolResult> {
  const parsed = definition.inputSchema.safeParse(rawInput);
  if (!parsed.success) {
    return {
      status: "failed",
      output: `Invalid input for ${definition.name}: ${describeIssues(parsed.error)}`,
    };
  }
  if (context.signal.aborted) {
    return { status: "interrupted", output: `${definition.name} was interrupted before it started` };
  }
  try {
    return await definition.execute(parsed.data, context);
  } catch (error) {
    if (context.signal.aborted) {
      return { status: "interrupted", output: `${definition.name} was interrupted` };
    }
    // A lost machine link (an MCP server on that machine) is the turn's failure, not the tool's (DESIGN §10b).
    if (error instanceof Error && (error as { code?: unknown }).code === "machine_disconnected") throw error;
    return { status: "failed", output: `${definition.name} failed: ${errorMessage(error)}` };
  }
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const field = issue.path.length > 0 ? issue.path.join(".") : "input";
      return `${field}: ${issue.message}`;
    })
    .join("; ");
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
