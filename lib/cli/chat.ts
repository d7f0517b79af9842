import { parseArgs } from "node:util";
import { conversationIdArgument, onePositional, type CliContext } from "./cli-context";
import { EXIT_FAILED } from "./exit-status";

/** `atrium chat <id>`: attaching a terminal to a live conversation is not built yet. */
export function runChat(args: string[], context: CliContext): number {
  const { positionals } = parseArgs({ args, options: {}, allowPositionals: true, strict: true });
  conversationIdArgument(onePositional(positionals, "id"));
  context.warn("atrium: chat is not yet available; open the conversation in the browser (atrium serve).");
  return EXIT_FAILED;
}
