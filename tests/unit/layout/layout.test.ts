import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { findCycles, readImportGraph } from "./import-graph";
import { functionLengths, neverRuleViolations, recordWriteViolations, sourceTexts } from "./layout-rules";

const ROOT = path.resolve(import.meta.dirname, "..", "..", "..");
const FILE_LIMIT = 400;
const TURN_LOOP = "lib/engine/turn-runner.ts";
const TURN_LOOP_LIMIT = 300;
const FUNCTION_LIMIT = 100;

const graph = readImportGraph(ROOT);

describe("lib/ layout (DESIGN §13)", () => {
  it("has no import circle, type-only imports included", () => {
    expect(findCycles(graph.edges)).toEqual([]);
  });

  it(`has no file over ${FILE_LIMIT} lines`, () => {
    const over = [...graph.lines].filter(([, lines]) => lines > FILE_LIMIT).map(([file, lines]) => `${file}: ${lines}`);
    expect(over).toEqual([]);
  });

  it(`keeps the turn loop (${TURN_LOOP}) under ${TURN_LOOP_LIMIT} lines`, () => {
    expect(graph.lines.get(TURN_LOOP)).toBeLessThan(TURN_LOOP_LIMIT);
  });

  it("breaks none of the never-rules (context, tools, agents, checkpoints, models, sandbox and ports never import lib/engine; the store no other domain)", () => {
    expect(neverRuleViolations(graph.edges)).toEqual([]);
  });

  it(`has no function or component over ${FUNCTION_LIMIT} lines in lib/, components/ and app/ (components/ui aside)`, () => {
    const over = functionLengths(ROOT, ["lib", "components", "app"])
      .filter((entry) => entry.lines > FUNCTION_LIMIT)
      .map((entry) => `${entry.where} ${entry.name}: ${entry.lines}`);
    expect(over).toEqual([]);
  });

  it("reads the index from the engine only through lib/store functions (no raw SQL)", () => {
    const engineFiles = [...graph.lines.keys()].filter((file) => /^lib\/(engine|agents|context|tools)\//.test(file));
    const raw = engineFiles.filter((file) => /\$client|\.prepare\(/.test(fs.readFileSync(path.join(ROOT, file), "utf8")));
    expect(raw).toEqual([]);
  });

  it("appends a conversation's records only through its owner's log (lib/engine/owner-records.ts) or a new conversation's staging", () => {
    expect(recordWriteViolations(sourceTexts(ROOT, ["lib", "app", "components", "bin"]))).toEqual([]);
  });

  it("finds a record written around the owner when there is one (the check can fail)", () => {
    const files = new Map([
      ["lib/engine/owner-records.ts", "await this.store.appendMetadata(id, body);"],
      ["lib/engine/fork.ts", "await staging.appendSession(sessionId, body);"],
      ["lib/engine/item-writer.ts", "await this.owner.records.appendSession(sessionId, body);"],
      ["lib/tools/records.ts", "await turn.records.appendSession(sessionId, body);"],
      ["lib/store/store.ts", "this.appendMetadata(id, body)"],
      ["lib/tools/sneaky.ts", "const a = 1;\nawait actor.context.store.appendMetadata(id, { type: 'queue.removed' });"],
      ["app/api/route.ts", "runtime.store.appendSession(id, sessionId, body)"],
    ]);
    expect(recordWriteViolations(files)).toEqual([
      "app/api/route.ts:1 store.appendSession",
      "lib/tools/records.ts:1 records.appendSession",
      "lib/tools/sneaky.ts:2 store.appendMetadata",
    ]);
  });

  it("finds a circle, an oversized file and a broken never-rule when there is one (the checks can fail)", () => {
    const edges = new Map([
      ["lib/a.ts", new Set(["lib/b.ts"])],
      ["lib/b.ts", new Set(["lib/c.ts"])],
      ["lib/c.ts", new Set(["lib/a.ts"])],
      ["lib/d.ts", new Set(["lib/a.ts"])],
    ]);
    expect(findCycles(edges)).toEqual([["lib/a.ts", "lib/b.ts", "lib/c.ts"]]);
    expect(findCycles(new Map([["lib/self.ts", new Set(["lib/self.ts"])]]))).toEqual([["lib/self.ts"]]);
    expect(
      neverRuleViolations(
        new Map([
          ["lib/tools/a.ts", new Set(["lib/engine/b.ts", "lib/ports/c.ts"])],
          ["lib/store/d.ts", new Set(["lib/store/e.ts", "lib/events/f.ts"])],
          ["lib/engine/g.ts", new Set(["lib/tools/a.ts"])],
        ]),
      ),
    ).toEqual([
      "lib/store/d.ts → lib/events/f.ts (the store imports no other domain)",
      "lib/tools/a.ts → lib/engine/b.ts (tools act through the owner's port (lib/ports))",
    ]);
  });
});
