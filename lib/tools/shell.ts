import { z } from "zod";
import { runShellCommand } from "./run-shell-command";
import { defineTool } from "./tool";

export const defaultShellTimeoutMs = 120_000;
export const maximumShellTimeoutMs = 600_000;

const description = `Runs a command with bash in the conversation's working directory and returns its output (stdout and stderr together).
- There is no terminal and no stdin: use non-interactive flags (for example \`--yes\`, \`git --no-pager\`).
- Each call starts a fresh shell; \`cd\` and exported variables do not carry over to the next call.
- The command is killed after timeoutMs (default ${defaultShellTimeoutMs} ms, at most ${maximumShellTimeoutMs} ms), together with every process it started.
- A nonzero exit code makes the call fail; the output is still returned.
- Prefer read_file, list_dir, write_file and edit_file for reading and changing files.`;

const inputSchema = z.object({
  command: z.string().min(1).describe("The bash command to run."),
  timeoutMs: z
    .number()
    .int()
    .positive()
    .max(maximumShellTimeoutMs)
    .optional()
    .describe(`Milliseconds before the command is killed; default ${defaultShellTimeoutMs}.`),
});

export const shellTool = defineTool({
  name: "shell",
  description,
  inputSchema,
  execute: (input, context) =>
    runShellCommand({
      command: input.command,
      cwd: context.cwd,
      timeoutMs: input.timeoutMs ?? defaultShellTimeoutMs,
      signal: context.signal,
      onOutput: (delta) => context.onOutput(delta),
      env: context.env,
      sandbox: context.sandbox,
    }),
});
