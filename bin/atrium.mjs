#!/usr/bin/env -S node --max-semi-space-size=8
// The `atrium` command and `npm start`. Runs the bundle `npm run build` wrote to dist/ (bin/bundle.mjs)
// when it was built from the sources as they are now, else the TypeScript sources through tsx:
// the same program either way, the bundle only starts faster.
import fs from "node:fs";
import module from "node:module";
import path from "node:path";

// Node 22.1+: V8's code cache (in the OS temp folder) for every module a start compiles, Next's
// server most of all; Node 20 has no such API and compiles each time. NODE_DISABLE_COMPILE_CACHE=1 turns it off.
module.enableCompileCache?.();

const DIST = path.resolve(import.meta.dirname, "..", "dist");

/** True when every file the bundle was made from still has the size and mtime it had then. */
function bundleIsFresh() {
  let manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(DIST, "manifest.json"), "utf8"));
  } catch {
    return false;
  }
  const root = path.dirname(DIST);
  return Object.entries(manifest.inputs ?? {}).every(([input, [size, mtimeMs]]) => {
    const stat = fs.statSync(path.join(root, input), { throwIfNoEntry: false });
    return stat !== undefined && stat.size === size && stat.mtimeMs === mtimeMs;
  });
}

if (bundleIsFresh()) {
  await import("../dist/atrium.mjs");
} else {
  await import("tsx");
  await import("./atrium.ts");
}
