import { spawnSync } from "node:child_process";
import fs from "node:fs";
import module from "node:module";
import path from "node:path";
import { expect, it } from "vitest";
// @ts-expect-error -- plain JavaScript (it runs before tsx is loaded), without type declarations
import { bundle } from "../../../bin/bundle.mjs";
import { makeTempHome } from "../../support/temp-home";

const REPO_ROOT = path.resolve(import.meta.dirname, "../../..");

/*
 * bin/atrium.mjs resolves the bundle's imports of its own chunks ("./chunk-….mjs") itself, by URL,
 * instead of through Node's resolver (realpath, stat, path.resolve for each: hot enough on Node 24
 * for TurboFan, whose code then stays in an idle server's RSS). A resolve hook registered before it
 * (a --require preload) runs after it, so it sees only what bin/atrium.mjs passed on.
 */
it.skipIf(!("registerHooks" in module))("resolves the bundle's own chunks without Node's resolver, everything else with it", async () => {
  await bundle();
  const temp = makeTempHome("atrium-chunks-");
  try {
    const seen = path.join(temp.home, "seen.json");
    const preload = path.join(temp.home, "record-resolves.cjs");
    fs.writeFileSync(
      preload,
      `const seen = [];
require("node:module").registerHooks({ resolve(specifier, context, next) { seen.push(specifier); return next(specifier, context); } });
process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(seen)}, JSON.stringify(seen)));
`,
    );
    const run = spawnSync(process.execPath, ["--require", preload, "bin/atrium.mjs", "help"], { cwd: REPO_ROOT, encoding: "utf8", env: { ...process.env, ATRIUM_HOME: temp.home } });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("atrium");
    const specifiers = JSON.parse(fs.readFileSync(seen, "utf8")) as string[];
    // The bundle was run (not the sources through tsx), and packages and builtins still went through Node.
    expect(specifiers).toContain("../dist/atrium.mjs");
    expect(specifiers.some((specifier) => specifier.startsWith("node:"))).toBe(true);
    expect(specifiers.filter((specifier) => specifier.startsWith("./chunk-"))).toEqual([]);
  } finally {
    temp.cleanup();
  }
}, 60_000);
