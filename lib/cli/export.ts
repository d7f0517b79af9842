import path from "node:path";
import { parseArgs } from "node:util";
import { exportConversation } from "../store/export-import";
import { conversationIdArgument, onePositional, type CliContext } from "./cli-context";
import { EXIT_DONE } from "./exit-status";

/** `atrium export <id> [--with-ancestors] [-o file]`: needs no lock, so it works while the server runs. */
export async function runExport(args: string[], context: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      "with-ancestors": { type: "boolean" },
      output: { type: "string", short: "o" },
    },
    allowPositionals: true,
    strict: true,
  });
  const conversationId = conversationIdArgument(onePositional(positionals, "id"));
  const output = path.resolve(context.cwd, values.output ?? `${conversationId}.tar.gz`);
  const result = await exportConversation(context.home, conversationId, {
    withAncestors: values["with-ancestors"] ?? false,
    output,
  });
  const ancestors = result.conversationIds.slice(1);
  context.print(`Exported ${conversationId} to ${result.file}`);
  if (ancestors.length > 0) context.print(`With its ancestors: ${ancestors.join(", ")}`);
  for (const missing of result.missingAncestors) {
    context.warn(`The parent conversation ${missing} is not on this machine; the export does not include it.`);
  }
  return EXIT_DONE;
}
