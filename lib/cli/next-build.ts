import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { CliContext } from "./cli-context";

/** `serve --build-if-missing` (what `npm start` runs): builds the Next app once, when .next/BUILD_ID is absent. */
export async function buildIfMissing(context: CliContext): Promise<void> {
  if (fs.existsSync(path.join(context.projectRoot, ".next", "BUILD_ID"))) return;
  context.print("No production build found (.next/BUILD_ID is missing); running next build…");
  const status = await new Promise<number>((resolve, reject) => {
    const child = spawn("npx", ["next", "build"], {
      cwd: context.projectRoot,
      stdio: "inherit",
      env: { ...context.env, NEXT_TELEMETRY_DISABLED: "1" },
    });
    child.once("error", reject);
    child.once("exit", (code) => resolve(code ?? 1));
  });
  if (status !== 0) throw new Error(`next build failed (exit status ${status})`);
}
