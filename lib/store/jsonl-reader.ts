import fs from "node:fs";
import type { z } from "zod";

export interface JsonlProblem {
  line: number;
  reason: string;
}

export interface JsonlReadResult<Record> {
  records: Array<{ record: Record; endOffset: number }>;
  /** Bytes that end with the last good line; anything after is a torn tail. */
  goodBytes: number;
  torn: JsonlProblem | null;
  invalid: JsonlProblem[];
}

/**
 * Reads a JSONL log. A torn last line (a crash mid-write) is skipped and reported;
 * a line in the middle that fails its schema is skipped and reported as invalid.
 */
export function readJsonl<Schema extends z.ZodType>(
  filePath: string,
  schema: Schema,
): JsonlReadResult<z.infer<Schema>> {
  let buffer: Buffer;
  try {
    buffer = fs.readFileSync(filePath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      return { records: [], goodBytes: 0, torn: null, invalid: [] };
    }
    throw error;
  }
  return parseJsonl(buffer, schema);
}

export function parseJsonl<Schema extends z.ZodType>(
  buffer: Buffer,
  schema: Schema,
): JsonlReadResult<z.infer<Schema>> {
  const records: Array<{ record: z.infer<Schema>; endOffset: number }> = [];
  const invalid: JsonlProblem[] = [];
  let torn: JsonlProblem | null = null;
  let goodBytes = 0;
  let start = 0;
  let lineNumber = 0;
  while (start < buffer.length) {
    lineNumber += 1;
    const newline = buffer.indexOf(10, start);
    const complete = newline !== -1;
    const end = complete ? newline : buffer.length;
    const text = buffer.toString("utf8", start, end);
    const parsed = parseLine(text, schema);
    if (!complete) {
      // A last line without its newline was cut by a crash, even when it happens to parse.
      torn = { line: lineNumber, reason: "the last line is incomplete" };
      break;
    }
    if (parsed.ok) {
      records.push({ record: parsed.value, endOffset: end + 1 });
    } else if (text.trim() !== "") {
      invalid.push({ line: lineNumber, reason: parsed.reason });
    }
    goodBytes = end + 1;
    start = end + 1;
  }
  return { records, goodBytes, torn, invalid };
}

function parseLine<Schema extends z.ZodType>(
  text: string,
  schema: Schema,
): { ok: true; value: z.infer<Schema> } | { ok: false; reason: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, reason: "not valid JSON" };
  }
  const result = schema.safeParse(json);
  if (!result.success) {
    const issue = result.error.issues[0];
    return { ok: false, reason: `${issue?.path.join(".") || "record"}: ${issue?.message}` };
  }
  return { ok: true, value: result.data };
}
