import fc from "fast-check";
import { afterAll, describe, it } from "vitest";
import { startCrashableRuntime } from "../support/crashable-runtime";
import { allCommands } from "./commands/all-commands";
import { commandTally } from "./commands/command-support";
import { CreateCommand } from "./commands/conversation-commands";
import { emptyModel, modelOptions, type MessageKind, type ModelOptions } from "./model-state";

/**
 * Model-based tests (STYLE §11): random sequences of the owner's commands against the real
 * Runtime on real files, every invariant checked after every step (commands/command-support.ts,
 * invariants.ts). ATRIUM_MODEL_RUNS sets how many sequences (default 100 per property, 200 in
 * all); ATRIUM_MODEL_SEED and ATRIUM_MODEL_PATH replay a reported failure.
 */
const RUNS = Number(process.env.ATRIUM_MODEL_RUNS ?? 200);
const SEED = process.env.ATRIUM_MODEL_SEED ? Number(process.env.ATRIUM_MODEL_SEED) : undefined;
const PATH = process.env.ATRIUM_MODEL_PATH;
const OPTIONS = modelOptions(process.env.ATRIUM_MODEL_BUGS);

function property(options: ModelOptions) {
  // Every sequence opens with a conversation, so its other commands have something to act on.
  const first = fc.constantFrom<MessageKind>("plain", "shell", "ask", "spawn").map((kind) => new CreateCommand(kind));
  return fc.asyncProperty(first, fc.commands(allCommands(), { maxCommands: 11, size: "max" }), async (create, commands) => {
    const harness = await startCrashableRuntime();
    try {
      await fc.asyncModelRun(() => ({ model: emptyModel(options), real: { harness } }), [create, ...commands]);
    } finally {
      await harness.close();
    }
  });
}

afterAll(() => {
  if (process.env.ATRIUM_MODEL_STATS) console.log(Object.fromEntries([...commandTally].sort((a, b) => b[1] - a[1])));
});

describe("the Runtime under random sequences of the owner's commands", () => {
  it("keeps every acknowledged message exactly once, leaves nothing running, and replays to the same state and index", async () => {
    await fc.assert(property(OPTIONS), { numRuns: RUNS, seed: SEED, path: PATH, endOnFailure: !process.env.ATRIUM_MODEL_SHRINK });
  }, 600_000);
});
