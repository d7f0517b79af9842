import type { ToolResult } from "./tool";

interface ContentBlock {
  type: string;
  text?: unknown;
  mimeType?: unknown;
  data?: unknown;
  uri?: unknown;
  name?: unknown;
  resource?: { uri?: unknown; text?: unknown; mimeType?: unknown };
}

/** An MCP CallToolResult as the text a model reads; images and blobs become notes, never base64 in context. */
export function mcpResultToToolResult(result: unknown): ToolResult {
  const record = (typeof result === "object" && result !== null ? result : {}) as {
    content?: unknown;
    structuredContent?: unknown;
    isError?: unknown;
    toolResult?: unknown;
  };
  const parts: string[] = [];
  const content = Array.isArray(record.content) ? (record.content as ContentBlock[]) : [];
  for (const block of content) parts.push(blockText(block));
  if (parts.length === 0 && record.structuredContent !== undefined) parts.push(JSON.stringify(record.structuredContent, null, 2));
  if (parts.length === 0 && record.toolResult !== undefined) parts.push(JSON.stringify(record.toolResult));
  return { status: record.isError === true ? "failed" : "completed", output: parts.join("\n") };
}

function blockText(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return String(block.text ?? "");
    case "image":
    case "audio":
      return `[${block.type} ${String(block.mimeType ?? "")}, ${typeof block.data === "string" ? Math.floor((block.data.length * 3) / 4) : 0} bytes, not shown]`;
    case "resource":
      return typeof block.resource?.text === "string" ? block.resource.text : `[resource ${String(block.resource?.uri ?? "")}]`;
    case "resource_link":
      return `[resource link ${String(block.uri ?? "")}${block.name ? ` (${String(block.name)})` : ""}]`;
    default:
      return `[${block.type} content]`;
  }
}
