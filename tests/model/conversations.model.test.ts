import { afterAll, describe, it } from "vitest";
import { commandTally } from "./commands/command-support";
import { checkTimes } from "./invariants";
import { assertModel, MODEL_ENV } from "./model-property";

/**
 * Model-based tests (STYLE §11): random sequences of the owner's commands against the real
 * Runtime on real files, every invariant checked after every step (commands/command-support.ts,
 * invariants.ts). Half of ATRIUM_MODEL_RUNS runs here, half in crash-restart.model.test.ts
 * (two files, which vitest may run side by side). A failure prints its seed, path and sequence:
 * ATRIUM_MODEL_SEED=… ATRIUM_MODEL_PATH=… npx vitest run tests/model/conversations.model.test.ts
 * replays it (shrunk to the shortest sequence found; ATRIUM_MODEL_SHRINK=0 skips that). Reported
 * bugs: known-bugs.model.test.ts.
 */
afterAll(() => {
  if (process.env.ATRIUM_MODEL_STATS) {
    console.table(Object.fromEntries([...commandTally].sort((a, b) => b[1].runs - a[1].runs)));
    console.log(checkTimes);
  }
});

describe("the Runtime under random sequences of the owner's commands", () => {
  it("keeps every acknowledged message exactly once, leaves nothing running, and replays to the same state and index", async () => {
    await assertModel(MODEL_ENV.options, 0.5);
  }, 900_000);
});
