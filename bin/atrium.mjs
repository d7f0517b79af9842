#!/usr/bin/env -S node --max-semi-space-size=8
// The `atrium` command and `npm start`. Runs the bundle `npm run build` wrote to dist/ (bin/bundle.mjs)
// when it was built from the sources as they are now, else the TypeScript sources through tsx:
// the same program either way, the bundle only starts faster.
import fs from "node:fs";
import module from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

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
  // Joined by hand: path.join's normalizing, run for each of some 340 inputs, is hot enough for
  // V8 to optimize it with TurboFan, whose code (megabytes of the node binary) then stays in RSS.
  const root = `${path.dirname(DIST)}/`;
  return Object.entries(manifest.inputs ?? {}).every(([input, [size, mtimeMs]]) => {
    const stat = fs.statSync(root + input, { throwIfNoEntry: false });
    return stat !== undefined && stat.size === size && stat.mtimeMs === mtimeMs;
  });
}

/**
 * The bundle's chunks import each other by relative name ("./chunk-….mjs"), some 280 imports in a
 * server's start. Node's resolver takes each through realpath, a stat and path.resolve twice, hot
 * enough for V8 to optimize its path code with TurboFan on Node 24, whose machine code (megabytes of
 * the node binary) then stays in an idle server's RSS. Within dist/ (one folder of .mjs files, no
 * links) the name is the file: such an import resolves to its URL directly. Node < 22.15 has no
 * registerHooks and resolves as before.
 */
const CHUNK = /^\.\/[\w.-]+\.mjs$/;

function resolveBundleChunksDirectly() {
  const distUrl = `${pathToFileURL(DIST).href}/`;
  module.registerHooks?.({
    resolve(specifier, context, nextResolve) {
      if (CHUNK.test(specifier) && context.parentURL?.startsWith(distUrl) && !context.parentURL.includes("/", distUrl.length)) {
        return { url: new URL(specifier, context.parentURL).href, format: "module", shortCircuit: true };
      }
      return nextResolve(specifier, context);
    },
  });
}

if (bundleIsFresh()) {
  resolveBundleChunksDirectly();
  await import("../dist/atrium.mjs");
} else {
  await import("tsx");
  await import("./atrium.ts");
}
