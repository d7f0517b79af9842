import fc from "fast-check";
import { describe, it } from "vitest";
import { startCrashableRuntime } from "../support/crashable-runtime";
import { allCommands } from "./commands/all-commands";
import { emptyModel, type ModelOptions } from "./model-state";

/**
 * Model-based tests (STYLE §11): random sequences of the owner's commands against the real
 * Runtime on real files, every invariant checked after every step (commands/command-support.ts,
 * invariants.ts). ATRIUM_MODEL_RUNS sets how many sequences (default 100 per property, 200 in
 * all); ATRIUM_MODEL_SEED and ATRIUM_MODEL_PATH replay a reported failure.
 */
const RUNS = Number(process.env.ATRIUM_MODEL_RUNS ?? 200);
const SEED = process.env.ATRIUM_MODEL_SEED ? Number(process.env.ATRIUM_MODEL_SEED) : undefined;
const PATH = process.env.ATRIUM_MODEL_PATH;

function property(options: ModelOptions) {
  return fc.asyncProperty(fc.commands(allCommands(), { maxCommands: 10 }), async (commands) => {
    const harness = await startCrashableRuntime();
    try {
      await fc.asyncModelRun(() => ({ model: emptyModel(options), real: { harness } }), commands);
    } finally {
      await harness.close();
    }
  });
}

describe("the Runtime under random sequences of the owner's commands", () => {
  it("keeps every acknowledged message exactly once, leaves nothing running, and replays to the same state and index", async () => {
    await fc.assert(property({ heldOwnerMessages: false }), { numRuns: RUNS, seed: SEED, path: PATH, endOnFailure: !process.env.ATRIUM_MODEL_SHRINK });
  }, 600_000);
});
