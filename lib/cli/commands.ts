import type { CliContext } from "./cli-context";

export type Command = (args: string[], context: CliContext) => number | Promise<number>;

/**
 * The subcommands, loaded on demand so `help` or a typo does not pay for SQLite, tar and the
 * server. (Kept out of bin/atrium.ts: tsx 4.23 fails to parse a file that has both a shebang
 * and a dynamic import.)
 */
const commands: Record<string, () => Promise<Command>> = {
  serve: async () => (await import("./serve")).runServe,
  reindex: async () => (await import("./reindex")).runReindex,
  export: async () => (await import("./export")).runExport,
  import: async () => (await import("./import")).runImport,
  token: async () => (await import("./token")).runToken,
  chat: async () => (await import("./chat")).runChat,
  machine: async () => (await import("./machine")).runMachine,
  migrate: async () => (await import("./migrate")).runMigrate,
};

export function findCommand(name: string): (() => Promise<Command>) | null {
  return Object.hasOwn(commands, name) ? commands[name] : null;
}
