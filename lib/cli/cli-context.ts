import fs from "node:fs";
import { isId } from "../store/ids";

/** What every command gets: the data directory, the environment and where to write. */
export interface CliContext {
  home: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** The Atrium checkout: where server.ts and .next live. */
  projectRoot: string;
  /** Results, on stdout. */
  print(line: string): void;
  /** Warnings and errors, on stderr. */
  warn(line: string): void;
}

/** Bad usage (unknown flag, missing argument, malformed id): exit status 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

export function ensureHome(context: CliContext): void {
  fs.mkdirSync(context.home, { recursive: true, mode: 0o700 });
}

export function onePositional(positionals: string[], name: string): string {
  if (positionals.length === 0) throw new UsageError(`missing <${name}>`);
  if (positionals.length > 1) throw new UsageError(`unexpected argument "${positionals[1]}"`);
  return positionals[0];
}

export function conversationIdArgument(value: string): string {
  if (!isId(value)) throw new UsageError(`"${value}" is not a conversation id (a 26-character ULID)`);
  return value;
}
