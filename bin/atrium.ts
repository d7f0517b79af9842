#!/usr/bin/env -S node --import tsx
import path from "node:path";
import { runChat } from "../lib/cli/chat";
import { UsageError, type CliContext } from "../lib/cli/cli-context";
import { EXIT_DONE, EXIT_USAGE, exitStatusFor } from "../lib/cli/exit-status";
import { runExport } from "../lib/cli/export";
import { runImport } from "../lib/cli/import";
import { runReindex } from "../lib/cli/reindex";
import { runServe } from "../lib/cli/serve";
import { runToken } from "../lib/cli/token";
import { USAGE } from "../lib/cli/usage";
import { defaultHome } from "../lib/store/paths";

type Command = (args: string[], context: CliContext) => number | Promise<number>;

const commands: Record<string, Command> = {
  serve: runServe,
  reindex: runReindex,
  export: runExport,
  import: runImport,
  token: runToken,
  chat: runChat,
};

async function main(argv: string[]): Promise<number> {
  const context: CliContext = {
    home: defaultHome(process.env),
    env: process.env,
    cwd: process.cwd(),
    projectRoot: path.resolve(import.meta.dirname, ".."),
    print: (line) => process.stdout.write(`${line}\n`),
    warn: (line) => process.stderr.write(`${line}\n`),
  };
  const [name, ...args] = argv;
  if (name === "help" || name === "--help" || name === "-h") {
    context.print(USAGE);
    return EXIT_DONE;
  }
  try {
    if (name === undefined) throw new UsageError("missing <command>");
    const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
    if (!command) throw new UsageError(`unknown command "${name}"`);
    if (args.includes("--help") || args.includes("-h")) {
      context.print(USAGE);
      return EXIT_DONE;
    }
    return await command(args, context);
  } catch (error) {
    const status = exitStatusFor(error);
    context.warn(`atrium: ${error instanceof Error ? error.message : String(error)}`);
    if (status === EXIT_USAGE) context.warn('Run "atrium help" for usage.');
    return status;
  }
}

// Exit explicitly: a server's or a library's leftover handles must not keep a finished command alive.
process.exit(await main(process.argv.slice(2)));
