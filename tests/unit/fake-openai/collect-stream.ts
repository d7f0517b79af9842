import type { TextStreamPart, ToolSet } from "ai";

export interface CollectedStream<Tools extends ToolSet> {
  parts: TextStreamPart<Tools>[];
  /** What iterating the stream threw, or undefined when it ended normally. */
  thrown: unknown;
}

/** Reads a `fullStream` to its end, keeping every part and whatever the iteration threw. */
export async function collectFullStream<Tools extends ToolSet>(
  stream: AsyncIterable<TextStreamPart<Tools>>,
  onPart?: (part: TextStreamPart<Tools>) => void,
): Promise<CollectedStream<Tools>> {
  const parts: TextStreamPart<Tools>[] = [];
  try {
    for await (const part of stream) {
      parts.push(part);
      onPart?.(part);
    }
    return { parts, thrown: undefined };
  } catch (error) {
    return { parts, thrown: error };
  }
}

export function textOf<Tools extends ToolSet>(parts: TextStreamPart<Tools>[]): string {
  return parts.map((part) => (part.type === "text-delta" ? part.text : "")).join("");
}

export function partTypes<Tools extends ToolSet>(parts: TextStreamPart<Tools>[]): string[] {
  return parts.map((part) => part.type);
}
