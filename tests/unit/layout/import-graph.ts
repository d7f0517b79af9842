import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

export interface ImportGraph {
  /** lib-relative file → lib-relative files it imports (type-only imports included). */
  edges: Map<string, Set<string>>;
  lines: Map<string, number>;
}

function listFiles(directory: string): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return listFiles(full);
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

function resolveImport(root: string, from: string, specifier: string): string | null {
  let base: string;
  if (specifier.startsWith("@/")) base = path.join(root, specifier.slice(2));
  else if (specifier.startsWith(".")) base = path.resolve(path.dirname(from), specifier);
  else return null;
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, path.join(base, "index.ts")]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** Every import (static, re-export, dynamic) between files under `lib/`, read with the TypeScript parser. */
export function readImportGraph(root: string): ImportGraph {
  const lib = path.join(root, "lib");
  const edges = new Map<string, Set<string>>();
  const lines = new Map<string, number>();
  for (const file of listFiles(lib)) {
    const text = fs.readFileSync(file, "utf8");
    const relative = path.relative(root, file);
    lines.set(relative, text.split("\n").length - (text.endsWith("\n") ? 1 : 0));
    const targets = new Set<string>();
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
    const visit = (node: ts.Node) => {
      let specifier: string | null = null;
      if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
        specifier = node.moduleSpecifier.text;
      } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && ts.isStringLiteral(node.arguments[0])) {
        specifier = (node.arguments[0] as ts.StringLiteral).text;
      }
      if (specifier) {
        const resolved = resolveImport(root, file, specifier);
        if (resolved && resolved.startsWith(lib + path.sep)) targets.add(path.relative(root, resolved));
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    edges.set(relative, targets);
  }
  return { edges, lines };
}

/** Strongly connected components with more than one file, or a file importing itself (Tarjan). */
export function findCycles(edges: Map<string, Set<string>>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const connect = (node: string) => {
    indices.set(node, index);
    low.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!indices.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, indices.get(next)!));
      }
    }
    if (low.get(node) === indices.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || edges.get(node)?.has(node)) cycles.push(component.sort());
    }
  };
  for (const node of edges.keys()) if (!indices.has(node)) connect(node);
  return cycles;
}
