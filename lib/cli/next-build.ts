import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { CliContext } from "./cli-context";

/** `serve --build-if-missing` (what `npm start` runs): builds the Next app once, when .next/BUILD_ID is absent. */
export async function buildIfMissing(context: CliContext): Promise<void> {
  if (fs.existsSync(path.join(context.projectRoot, ".next", "BUILD_ID"))) return;
  context.print("No production build found (.next/BUILD_ID is missing); running next build…");
  await run("npx", ["next", "build"], context, "next build");
  // The bundle `npm start` runs (bin/bundle.mjs, the second half of `npm run build`): without it, starts compile through tsx.
  if (fs.existsSync(path.join(context.projectRoot, "bin", "bundle.mjs"))) await run(process.execPath, ["bin/bundle.mjs"], context, "the server bundle");
}

async function run(command: string, args: string[], context: CliContext, what: string): Promise<void> {
  const status = await new Promise<number>((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: context.projectRoot,
      stdio: "inherit",
      env: { ...context.env, NEXT_TELEMETRY_DISABLED: "1" },
    });
    child.once("error", reject);
    child.once("exit", (code) => resolve(code ?? 1));
  });
  if (status !== 0) throw new Error(`${what} failed (exit status ${status})`);
}
