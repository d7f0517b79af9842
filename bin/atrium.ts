#!/usr/bin/env -S node --import tsx
import path from "node:path";
import { UsageError, type CliContext } from "../lib/cli/cli-context";
import { findCommand } from "../lib/cli/commands";
import { EXIT_DONE, EXIT_USAGE, exitStatusFor } from "../lib/cli/exit-status";
import { USAGE } from "../lib/cli/usage";
import { defaultHome } from "../lib/store/paths";

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
    const load = findCommand(name);
    if (!load) throw new UsageError(`unknown command "${name}"`);
    if (args.includes("--help") || args.includes("-h")) {
      context.print(USAGE);
      return EXIT_DONE;
    }
    const command = await load();
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
