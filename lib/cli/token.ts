import { parseArgs } from "node:util";
import { loadOrCreateToken } from "../auth/token";
import { dataPaths } from "../store/paths";
import { ensureHome, type CliContext } from "./cli-context";
import { EXIT_DONE } from "./exit-status";

/** `atrium token`: prints the access token, creating it (mode 0600) when absent. */
export function runToken(args: string[], context: CliContext): number {
  parseArgs({ args, options: {}, allowPositionals: false, strict: true });
  ensureHome(context);
  context.print(loadOrCreateToken(dataPaths(context.home).token, context.env));
  return EXIT_DONE;
}
