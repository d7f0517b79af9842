import type { TextStreamPart, ToolSet } from "ai";

/** Reads a streamText result's fullStream to the end. */
export async function readParts<TOOLS extends ToolSet>(
  fullStream: AsyncIterable<TextStreamPart<TOOLS>>,
): Promise<TextStreamPart<TOOLS>[]> {
  const parts: TextStreamPart<TOOLS>[] = [];
  for await (const part of fullStream) parts.push(part);
  return parts;
}

export function textDeltas<TOOLS extends ToolSet>(parts: TextStreamPart<TOOLS>[]): string[] {
  return parts.flatMap((part) => (part.type === "text-delta" ? [part.text] : []));
}

export function reasoningDeltas<TOOLS extends ToolSet>(parts: TextStreamPart<TOOLS>[]): string[] {
  return parts.flatMap((part) => (part.type === "reasoning-delta" ? [part.text] : []));
}
