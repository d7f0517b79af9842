// `npm run build`'s second step: bundles the command line (bin/atrium.ts) and the server
// (server.ts) with everything they import from lib/ into dist/, so `npm start` and `atrium`
// run plain JavaScript instead of compiling TypeScript through tsx at every start. Packages
// stay external (loaded from node_modules, as before). bin/atrium.mjs runs the bundle only
// while dist/manifest.json matches the sources (size and mtime of every input), else tsx.
import fs from "node:fs";
import path from "node:path";
import * as esbuild from "esbuild";

const ROOT = path.resolve(import.meta.dirname, "..");
export const DIST = path.join(ROOT, "dist");

/**
 * `import.meta.dirname` in a bundled file would name dist/: each source's own directory is
 * put back, relative to the project root (dist/'s parent, computed once per output file).
 */
const sourceDirectories = {
  name: "atrium-source-directories",
  setup(build) {
    build.onLoad({ filter: /\.tsx?$/ }, async (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      // (The shebang too: the bundle is imported by bin/atrium.mjs, never run by itself.)
      const source = (await fs.promises.readFile(args.path, "utf8")).replace(/^#!.*\n/, "");
      const directory = path.relative(ROOT, path.dirname(args.path)).split(path.sep).join("/");
      const replacement = directory === "" ? "__atriumRoot" : `(__atriumRoot + ${JSON.stringify(`/${directory}`)})`;
      return { contents: source.replaceAll("import.meta.dirname", replacement), loader: args.path.endsWith("x") ? "tsx" : "ts" };
    });
  },
};

/**
 * Pure-JS ESM packages with many files, put into the bundle: on Node 22+ every ESM import of a
 * package file reads its package.json scope again, and drizzle-orm's is 179 KB (447 exports), which
 * was ~0.5 s of a Node 24 start. (Next's build has its own copies of them, as before.)
 */
const INLINED = ["drizzle-orm", "zod"];

/**
 * zod's `locales` namespace (z.locales, z.core.locales) holds ~50 languages' error messages; the
 * bundle keeps English, the one zod uses unless z.config() picks another (Atrium never does).
 * The rest was a third of the zod chunk's source, parsed and kept in memory at every start.
 */
const zodEnglishOnly = {
  name: "atrium-zod-english-only",
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({
      contents: 'export { default as en } from "./en.js";\n',
      resolveDir: path.dirname(args.path),
      loader: "js",
    }));
  },
};

function externalPackages() {
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));
  const names = Object.keys({ ...manifest.dependencies, ...manifest.devDependencies }).filter((name) => !INLINED.includes(name));
  return names.flatMap((name) => [name, `${name}/*`]);
}

export async function bundle() {
  fs.rmSync(DIST, { recursive: true, force: true });
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: { atrium: "bin/atrium.ts", server: "server.ts" },
    outdir: DIST,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    // Packages stay external except INLINED (see there).
    external: externalPackages(),
    keepNames: true,
    sourcemap: "linked",
    // tsconfig's "@/*" paths and extension-less imports resolve as in tsx.
    tsconfig: "tsconfig.json",
    banner: { js: 'import { dirname as __atriumDirname } from "node:path";\nconst __atriumRoot = __atriumDirname(import.meta.dirname);' },
    define: { __ATRIUM_BUNDLE__: "true" },
    plugins: [sourceDirectories, zodEnglishOnly],
    metafile: true,
    logLevel: "warning",
    // database.ts keeps `import.meta.dirname ?? process.cwd()` for other loaders; here the left side is always set.
    logOverride: { "suspicious-nullish-coalescing": "silent" },
  });
  asciiOnly(Object.keys(result.metafile.outputs).filter((output) => output.endsWith(".mjs")));
  await writeIndexTemplate();
  const inputs = {};
  // The build's own settings count as inputs too: a changed bundler script or tsconfig makes it stale.
  // An inlined package's files are not stat-ed at every start: package-lock.json names its version.
  const sources = Object.keys(result.metafile.inputs).filter((input) => !input.startsWith("node_modules/"));
  for (const input of [...sources, "bin/bundle.mjs", "tsconfig.json", "package-lock.json"]) {
    const stat = fs.statSync(path.join(ROOT, input));
    inputs[input] = [stat.size, stat.mtimeMs];
  }
  // Written last: a bundle without its manifest is never run.
  fs.writeFileSync(path.join(DIST, "manifest.json"), `${JSON.stringify({ inputs }, null, 1)}\n`);
}

/**
 * The empty index with every migration applied (lib/store/database.ts): the bundle's first
 * start in a new data directory copies it instead of migrating (~30 ms, mostly disk waits).
 * Made by the same code that migrates, run from the sources through tsx.
 */
async function writeIndexTemplate() {
  try {
    const { tsImport } = await import("tsx/esm/api");
    const database = await tsImport(path.join(ROOT, "lib", "store", "database.ts"), import.meta.url);
    database.writeIndexTemplate(DIST);
  } catch (error) {
    // Only a speed-up: without it a new index is migrated, as from the sources.
    console.warn(`bundle: no index template (a new data directory's index will be migrated at its first start): ${error.message}`);
  }
}

/**
 * V8 keeps every module's source in memory, as one byte a character only while all of it is
 * ASCII: a single "—" or "§" in a comment that esbuild kept doubles it (the zod chunk was 1.5
 * MiB instead of 0.77 of an idle server's heap). esbuild already escapes strings; what is left
 * is in comments, where an escape is as good as the character.
 */
function asciiOnly(outputs) {
  for (const output of outputs) {
    const file = path.join(ROOT, output);
    const text = fs.readFileSync(file, "utf8");
    // Every UTF-16 unit of what is left, escaped: in a comment it is only text.
    const escaped = text.replace(/[^\x00-\x7f]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`);
    if (escaped !== text) fs.writeFileSync(file, escaped);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) await bundle();
