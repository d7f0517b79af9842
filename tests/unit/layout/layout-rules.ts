import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

/**
 * DESIGN §13's "never" rules: the domains that act on a conversation reach its owner through
 * lib/ports, never lib/engine, and the store imports no other domain.
 */
export const NEVER_RULES: ReadonlyArray<{ from: string; never: RegExp; why: string }> = [
  { from: "lib/context", never: /^lib\/engine\//, why: "context is assembled from what the owner passes in" },
  { from: "lib/tools", never: /^lib\/engine\//, why: "tools act through the owner's port (lib/ports)" },
  { from: "lib/agents", never: /^lib\/engine\//, why: "subagents act through the owner's port (lib/ports)" },
  { from: "lib/checkpoints", never: /^lib\/engine\//, why: "checkpoints act through the owner's port (lib/ports)" },
  { from: "lib/models", never: /^lib\/engine\//, why: "providers know nothing of conversations" },
  { from: "lib/sandbox", never: /^lib\/engine\//, why: "confinement knows nothing of conversations" },
  { from: "lib/ports", never: /^lib\/engine\//, why: "the port is what the engine implements, not a part of it" },
  { from: "lib/store", never: /^lib\/(?!store\/)[^/]+\//, why: "the store imports no other domain" },
];

export function neverRuleViolations(edges: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const violations: string[] = [];
  for (const [from, targets] of edges) {
    for (const rule of NEVER_RULES) {
      if (!from.startsWith(`${rule.from}/`)) continue;
      for (const target of targets) if (rule.never.test(target)) violations.push(`${from} → ${target} (${rule.why})`);
    }
  }
  return violations.sort();
}

export interface FunctionLength {
  where: string;
  name: string;
  lines: number;
}

function sourceFiles(directory: string): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    // components/ui holds the vendored shadcn primitives.
    if (entry.isDirectory()) return entry.name === "node_modules" || entry.name === "ui" ? [] : sourceFiles(full);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [full] : [];
  });
}

function functionName(node: ts.Node, source: ts.SourceFile): string | null {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isGetAccessor(node) || ts.isConstructorDeclaration(node)) && node.body) {
    return node.name ? node.name.getText(source) : "constructor";
  }
  if (!ts.isArrowFunction(node) && !ts.isFunctionExpression(node)) return null;
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText(source);
  if (ts.isCallExpression(parent) && ts.isVariableDeclaration(parent.parent)) return `${parent.parent.name.getText(source)}(callback)`;
  return null;
}

/** The length in lines of every named function, method, arrow function and component under `directories`. */
export function functionLengths(root: string, directories: readonly string[]): FunctionLength[] {
  const lengths: FunctionLength[] = [];
  for (const file of directories.flatMap((directory) => sourceFiles(path.join(root, directory)))) {
    const kind = file.endsWith("x") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
    const source = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true, kind);
    const visit = (node: ts.Node, owner: string | null) => {
      const name = functionName(node, source);
      if (name) {
        const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
        const end = source.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
        lengths.push({ where: `${path.relative(root, file)}:${start}`, name: owner ? `${owner}.${name}` : name, lines: end - start + 1 });
      }
      const next = ts.isClassDeclaration(node) && node.name ? node.name.getText(source) : owner;
      ts.forEachChild(node, (child) => visit(child, next));
    };
    visit(source, null);
  }
  return lengths;
}

/**
 * The one-writer rule as a module boundary: a conversation's records are appended only by its
 * owner's log (lib/engine/owner-records.ts, reached in lib/engine as `records`) or, for a
 * conversation not yet created, by the staging that creates it (`staging`); the store defines them.
 */
export const RECORD_WRITERS = { owner: "lib/engine/owner-records.ts", engine: /^lib\/engine\//, store: /^lib\/store\// } as const;

/** Every `x.appendMetadata(` / `x.appendSession(` call outside what RECORD_WRITERS allows, as "file:line receiver.method". */
export function recordWriteViolations(files: ReadonlyMap<string, string>): string[] {
  const violations: string[] = [];
  for (const [file, text] of files) {
    if (RECORD_WRITERS.store.test(file)) continue;
    for (const match of text.matchAll(/([\w$]+)\s*\.\s*(appendMetadata|appendSession)\s*\(/g)) {
      const receiver = match[1];
      if (file === RECORD_WRITERS.owner && receiver === "store") continue;
      if ((receiver === "staging" || receiver === "records") && RECORD_WRITERS.engine.test(file)) continue;
      const line = text.slice(0, match.index).split("\n").length;
      violations.push(`${file}:${line} ${receiver}.${match[2]}`);
    }
  }
  return violations.sort();
}

/** The TypeScript sources under `directories`, by path relative to `root`. */
export function sourceTexts(root: string, directories: readonly string[]): Map<string, string> {
  const texts = new Map<string, string>();
  for (const file of directories.flatMap((directory) => sourceFiles(path.join(root, directory)))) {
    texts.set(path.relative(root, file), fs.readFileSync(file, "utf8"));
  }
  return texts;
}
