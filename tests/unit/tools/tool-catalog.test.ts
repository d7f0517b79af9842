import { describe, expect, it } from "vitest";
import { toolCatalog } from "@/lib/tools/tool-catalog";

describe("toolCatalog", () => {
  it("describes every built-in tool with its input as JSON Schema", () => {
    const catalog = toolCatalog();

    expect(catalog.map((entry) => entry.name)).toEqual(["shell", "read_file", "list_dir", "write_file", "edit_file"]);
    for (const entry of catalog) expect(entry.description.length).toBeGreaterThan(20);
    expect(catalog[0]?.inputSchema).toMatchObject({
      type: "object",
      properties: { command: { type: "string" }, timeoutMs: { type: "integer", maximum: 600_000 } },
      required: ["command"],
    });
  });
});
