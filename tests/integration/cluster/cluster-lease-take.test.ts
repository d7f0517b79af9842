import { setImmediate as tick } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { usePostgresPerFile } from "../../support/embedded-postgres";
import { pollUntil } from "../../support/poll";
import { pushOutIdleOwner } from "../../support/push-out-idle-owner";
import { startHarness, type Harness } from "../../support/runtime-harness";

/**
 * Issue 24 step (f), DESIGN §10c: a node reads a conversation into its (in-memory) index when it
 * takes the lease. Until that read is done the node does not count the conversation as held: a
 * page read or a command arriving meanwhile never sees a half-read index (a 404 for a
 * conversation that exists, an empty page). Two real Runtimes on one real PostgreSQL.
 */
const database = usePostgresPerFile();
let a: Harness;
let b: Harness;

beforeAll(async () => {
  [a, b] = await Promise.all([
    startHarness({}, undefined, { databaseUrl: database.postgres.url }),
    startHarness({}, undefined, { databaseUrl: database.postgres.url, maxLoadedOwners: 1 }),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
});

/** A conversation made on B whose lease B has handed back (its idle owner evicted by a second one). */
async function releasedByB(text: string): Promise<string> {
  const id = (await b.runtime.createConversation({ text })).conversation.id;
  await pollUntil(async () => (await b.runtime.pages.getConversation(id)).status === "idle", { what: "the conversation idle" });
  await pushOutIdleOwner(b, async () => !b.runtime.cluster!.placement.isHere(id) && (await a.runtime.cluster!.placement.holders([id])).size === 0, "B handing the lease back");
  return id;
}

describe("a lease being taken", () => {
  it("counts the conversation as held only once its index rows are read in", async () => {
    const id = await releasedByB("read in whole [[stream:3]]");
    const expected = await a.runtime.pages.listItems(id, {});
    expect(expected.items.length).toBeGreaterThan(0);
    const taking = a.runtime.locate(id);
    let done = false;
    void taking.then(() => (done = true));
    const seen: Array<{ conversation: string | null; items: number; located: string }> = [];
    // Every turn of the loop while the lease is being taken: what a request arriving then is answered.
    while (!done) {
      const located = await Promise.race([a.runtime.locate(id), tick().then(() => null)]);
      const conversation = await a.runtime.pages.getConversation(id).then(
        (found) => found.id,
        (error: unknown) => `error ${(error as { code?: string }).code}`,
      );
      const items = await a.runtime.pages.listItems(id, {}).then(
        (page) => page.items.length,
        () => -1,
      );
      seen.push({ conversation, items, located: located?.kind ?? "waiting" });
      await tick();
    }
    expect((await taking).kind).toBe("here");
    expect(seen.length).toBeGreaterThan(0);
    for (const answer of seen) {
      expect(answer.conversation).toBe(id);
      expect(answer.items).toBe(expected.items.length);
    }
    expect((await a.runtime.pages.listItems(id, {})).items).toEqual(expected.items);
  });
});

describe("a lease handed back because its idle owner left memory", () => {
  it("answers a command that found it here a moment before node_unavailable (retry), not not_found", async () => {
    const x = await releasedByB("x, handed back by B");
    const y = await releasedByB("y, handed back by B");
    // B (one owner in memory) takes x, then y: x's idle owner is evicted and its lease handed back.
    expect((await b.runtime.locate(x)).kind).toBe("here");
    b.runtime.getConversation(x);
    expect((await b.runtime.locate(y)).kind).toBe("here");
    b.runtime.getConversation(y);
    await pollUntil(() => !b.runtime.cluster!.placement.isHere(x), { what: "B letting x go" });
    // A command for x located before the eviction reaches its owner now.
    const refused = await b.runtime.sendMessage(x, { text: "still there?", mode: "auto" }).then(
      () => null,
      (error: unknown) => error as { code: string },
    );
    expect(refused?.code).toBe("node_unavailable");
    // Asked again, it is taken here once more and runs.
    expect((await b.runtime.locate(x)).kind).toBe("here");
    const sent = await b.runtime.sendMessage(x, { text: "now", mode: "auto" });
    await b.turnEnded(x, sent.turn!.id);
  });

  it("answers not_found once the conversation it let go is found deleted", async () => {
    const x = await releasedByB("evicted on B, then deleted on A");
    expect((await a.runtime.locate(x)).kind).toBe("here");
    await a.runtime.deleteConversation(x);
    await pollUntil(async () => (await b.runtime.locate(x, { fresh: true })).kind === "missing", { what: "B finding x gone" });
    const refused = await b.runtime.sendMessage(x, { text: "anyone?", mode: "auto" }).then(
      () => null,
      (error: unknown) => error as { code: string },
    );
    expect(refused?.code).toBe("not_found");
  });
});

describe("a node's index replica", () => {
  it("keeps nothing per conversation once its writes, reads in and drops are done", async () => {
    const pending = (harness: Harness) => (harness.runtime.cluster!.placement as unknown as { replica: { reading: Map<string, unknown> } }).replica.reading;
    // Written on B (one owner in memory): each is indexed, written, then dropped as the next one comes.
    for (const text of ["one", "two", "three"]) await releasedByB(text);
    await pollUntil(() => pending(b).size === 0 && pending(a).size === 0, { what: "no index work left under way" });
  });
});
