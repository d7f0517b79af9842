import fc from "fast-check";
import { startCrashableRuntime } from "../support/crashable-runtime";
import { allCommands, type CommandWeights } from "./commands/all-commands";
import type { ModelCommand } from "./commands/command-support";
import { CreateCommand } from "./commands/conversation-commands";
import { emptyModel, modelOptions, SCRATCH, type MessageKind, type ModelOptions } from "./model-state";

/**
 * How a model-based run is sized and replayed, from the environment:
 * ATRIUM_MODEL_RUNS   sequences in all (default 200, split between the model test files);
 * ATRIUM_MODEL_SEED / ATRIUM_MODEL_PATH   replay a reported failure (with its file's -t name);
 * ATRIUM_MODEL_SHRINK=0   report a failure as found, without shrinking it to a shorter sequence;
 * ATRIUM_MODEL_BUGS=all   let the commands reach the reported bugs' cases (known-bugs.model.test.ts);
 * ATRIUM_MODEL_STATS=1    print how often each command ran and where the time went.
 */
export const MODEL_ENV = {
  runs: Number(process.env.ATRIUM_MODEL_RUNS ?? 200),
  seed: process.env.ATRIUM_MODEL_SEED ? Number(process.env.ATRIUM_MODEL_SEED) : undefined,
  path: process.env.ATRIUM_MODEL_PATH,
  shrink: process.env.ATRIUM_MODEL_SHRINK !== "0",
  options: modelOptions(process.env.ATRIUM_MODEL_BUGS),
};

/** Runs one command sequence against a Runtime of its own, on a temp home of its own. */
export async function runSequence(options: ModelOptions, commands: Iterable<ModelCommand>): Promise<void> {
  const harness = await startCrashableRuntime({}, SCRATCH);
  try {
    await fc.asyncModelRun(() => ({ model: emptyModel(options), real: { harness } }), commands);
  } finally {
    await harness.close();
  }
}

/**
 * The property: any sequence of up to 12 commands, opening with a new conversation (so the
 * others have something to act on), keeps every invariant after every step.
 */
export function modelProperty(options: ModelOptions, weights: CommandWeights = {}) {
  const first = fc.constantFrom<MessageKind>("plain", "shell", "ask", "spawn").map((kind) => new CreateCommand(kind));
  return fc.asyncProperty(first, fc.commands(allCommands(weights), { maxCommands: 11, size: "max" }), (create, commands) =>
    runSequence(options, [create, ...(commands as Iterable<ModelCommand>)]),
  );
}

/** fc.assert with the environment's run count share, seed and shrinking. */
export async function assertModel(options: ModelOptions, share: number, weights: CommandWeights = {}): Promise<void> {
  await fc.assert(modelProperty(options, weights), {
    numRuns: Math.max(1, Math.round(MODEL_ENV.runs * share)),
    seed: MODEL_ENV.seed,
    path: MODEL_ENV.path,
    endOnFailure: !MODEL_ENV.shrink,
  });
}
