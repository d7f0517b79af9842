import { z } from "zod";
import { builtinFileAndShellTools } from "./builtin-tools";
import type { AnyToolDefinition } from "./tool";

export interface ToolCatalogEntry {
  name: string;
  description: string;
  inputSchema: z.core.JSONSchema.JSONSchema;
}

/** What the model is told about each tool: its name, description and input as JSON Schema. */
export function toolCatalog(tools: readonly AnyToolDefinition[] = builtinFileAndShellTools): ToolCatalogEntry[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: z.toJSONSchema(tool.inputSchema),
  }));
}
