import { afterAll, describe, it } from "vitest";
import { commandTally } from "./commands/command-support";
import { assertModel, MODEL_ENV } from "./model-property";

/**
 * The same property as conversations.model.test.ts, with sequences leaning on kill -9 (mid-turn
 * and between turns), clean restarts, forks, rewinds and deletes around them.
 */
afterAll(() => {
  if (process.env.ATRIUM_MODEL_STATS) console.table(Object.fromEntries([...commandTally].sort((a, b) => b[1].runs - a[1].runs)));
});

describe("the Runtime under random sequences with crashes and restarts", () => {
  it("recovers every acknowledged message, closes what ran, keeps what was parked, and replays to the same state and index", async () => {
    await assertModel(MODEL_ENV.options, 0.5, { crash: 2, crashDuringRun: 2, restart: 1, send: 1, fork: 1, rewind: 1 });
  }, 900_000);
});
