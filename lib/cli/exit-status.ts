import { isAtriumError } from "../errors";
import { ImportClashError } from "../store/import-clash-error";
import { UsageError } from "./cli-context";

/** DESIGN §11: 0 done, 1 failed, 2 bad usage, 3 refused (lock held, id clash). */
export const EXIT_DONE = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;
export const EXIT_REFUSED = 3;

export function exitStatusFor(error: unknown): number {
  if (error instanceof UsageError || isParseArgsError(error)) return EXIT_USAGE;
  if (error instanceof ImportClashError) return EXIT_REFUSED;
  if (isAtriumError(error) && error.code === "lock_held") return EXIT_REFUSED;
  return EXIT_FAILED;
}

/** node:util parseArgs throws TypeErrors carrying ERR_PARSE_ARGS_* codes. */
function isParseArgsError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("ERR_PARSE_ARGS_");
}
