/**
 * Directives steer the offline model (DESIGN §7). They are found with a
 * bracket-aware scan so that a tool's JSON argument may carry `[[…]]` and
 * `]]` inside its strings, e.g. a subagent task with its own directives.
 */
export type Directive =
  | { kind: "stream"; words: number }
  | { kind: "delay"; milliseconds: number }
  | { kind: "reason"; words: number }
  | { kind: "tool"; name: string; input: string }
  | { kind: "fail"; status: number; count: number };

export interface ScanResult {
  directives: Directive[];
  text: string;
}

const OPEN = "[[";
const CLOSE = "]]";
const TOOL_NAME_PATTERN = /^[A-Za-z0-9_.-]+/;
const SIMPLE_PATTERNS: Array<[RegExp, (match: RegExpExecArray) => Directive]> = [
  [/^stream:(\d+)\]\]/, (match) => ({ kind: "stream", words: Number(match[1]) })],
  [/^delay:(\d+)\]\]/, (match) => ({ kind: "delay", milliseconds: Number(match[1]) })],
  [/^reason:(\d+)\]\]/, (match) => ({ kind: "reason", words: Number(match[1]) })],
  [
    /^fail:(\d{3})(?:\*(\d+))?\]\]/,
    (match) => ({ kind: "fail", status: Number(match[1]), count: match[2] === undefined ? 1 : Number(match[2]) }),
  ],
];

interface Found {
  directive: Directive;
  end: number;
}

export function scanDirectives(input: string): ScanResult {
  const directives: Directive[] = [];
  const pieces: string[] = [];
  let copiedUpTo = 0;
  let position = input.indexOf(OPEN);
  while (position !== -1) {
    const found = readDirective(input, position + OPEN.length);
    if (found === null) {
      position = input.indexOf(OPEN, position + 1);
      continue;
    }
    directives.push(found.directive);
    pieces.push(input.slice(copiedUpTo, position));
    copiedUpTo = found.end;
    position = input.indexOf(OPEN, found.end);
  }
  pieces.push(input.slice(copiedUpTo));
  return { directives, text: joinAroundRemovedDirectives(pieces) };
}

/** Joins the text between directives: the whitespace meeting at a removed directive becomes one separator. */
function joinAroundRemovedDirectives(pieces: string[]): string {
  let text = pieces[0];
  for (const piece of pieces.slice(1)) {
    const before = text.match(/\s*$/)![0];
    const after = piece.match(/^\s*/)![0];
    const gap = before + after;
    const separator = gap === "" ? "" : gap.includes("\n") ? "\n" : " ";
    text = text.slice(0, text.length - before.length) + separator + piece.slice(after.length);
  }
  return text.trim();
}

function readDirective(input: string, start: number): Found | null {
  const rest = input.slice(start);
  for (const [pattern, build] of SIMPLE_PATTERNS) {
    const match = pattern.exec(rest);
    if (match) return { directive: build(match), end: start + match[0].length };
  }
  if (rest.startsWith("tool:")) return readToolDirective(input, start + "tool:".length);
  return null;
}

function readToolDirective(input: string, start: number): Found | null {
  const name = TOOL_NAME_PATTERN.exec(input.slice(start))?.[0];
  if (name === undefined) return null;
  let position = skipWhitespace(input, start + name.length);
  let json = "{}";
  if (!input.startsWith(CLOSE, position)) {
    const end = findJsonEnd(input, position);
    if (end === null) return null;
    json = input.slice(position, end);
    position = skipWhitespace(input, end);
    if (!input.startsWith(CLOSE, position)) return null;
  }
  return { directive: { kind: "tool", name, input: json }, end: position + CLOSE.length };
}

function skipWhitespace(input: string, position: number): number {
  while (position < input.length && /\s/.test(input[position])) position += 1;
  return position;
}

/**
 * Returns the index just past a JSON object or array starting at `start`,
 * tracking strings and escapes so brackets inside strings do not count.
 */
function findJsonEnd(input: string, start: number): number | null {
  const first = input[start];
  if (first !== "{" && first !== "[") return null;
  const expectedClosers: string[] = [];
  let inString = false;
  for (let position = start; position < input.length; position += 1) {
    const character = input[position];
    if (inString) {
      if (character === "\\") position += 1;
      else if (character === '"') inString = false;
      continue;
    }
    if (character === '"') inString = true;
    else if (character === "{") expectedClosers.push("}");
    else if (character === "[") expectedClosers.push("]");
    else if (character === "}" || character === "]") {
      if (expectedClosers.pop() !== character) return null;
      if (expectedClosers.length === 0) return position + 1;
    }
  }
  return null;
}
