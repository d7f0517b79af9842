import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { usePostgresPerFile } from "../../support/embedded-postgres";
import { pollUntil } from "../../support/poll";
import { startHarness, type Harness } from "../../support/runtime-harness";

/**
 * Issue 24 step (f) review, DESIGN §10c: a node whose lease runs out in the middle of a turn (its
 * renewal failed; nobody else took it) and which then takes the conversation again itself. Its
 * old owner stops; the conversation is read into its index again, whole, and crash recovery
 * closes the turn. Nothing of the old owner is written under the new lease, and the node's index
 * agrees with the cluster's tables. Real Runtimes on one real PostgreSQL.
 */
const database = usePostgresPerFile();
let a: Harness;
let b: Harness;

beforeAll(async () => {
  // A renews every third of a second, so it hears quickly that its lease ran out.
  [a, b] = await Promise.all([
    startHarness({ cluster: { leaseSeconds: 1 } }, undefined, { databaseUrl: database.postgres.url }),
    startHarness({ cluster: { leaseSeconds: 1 } }, undefined, { databaseUrl: database.postgres.url }),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
});

describe("a lease lost mid-turn and taken again by the same node", () => {
  it("closes the turn once, and its index matches the database", async () => {
    const made = await a.runtime.createConversation({ text: "long answer [[stream:400]] [[delay:15]]" });
    const id = made.conversation.id;
    await pollUntil(() => a.items(id).some((item) => item.kind === "assistant_message" && (item.text ?? "").length > 20), { what: "the answer streaming" });
    // As if A had been cut off: its lease runs out, and A hears at its next renewal that it lost it.
    await database.pool.query("UPDATE atrium_leases SET expires_at = clock_timestamp() - interval '1 second' WHERE conversation_id = $1", [id]);
    await pollUntil(() => !a.runtime.cluster!.placement.isHere(id), { what: "A hearing it lost the lease" });
    // A is asked again: it takes the conversation back and recovers the turn.
    expect((await a.runtime.locate(id)).kind).toBe("here");
    const turn = await a.turnEnded(id, made.turn.id);
    expect(turn.status).toBe("interrupted");
    expect(turn.error?.code).toBe("server_stopped");
    const ended = (await database.pool.query("SELECT record FROM atrium_records WHERE conversation_id = $1 AND record->>'type' = 'turn.ended'", [id])).rows;
    expect(ended).toHaveLength(1);
    // A's own pages (its index and owner) as B reads them from the cluster's tables.
    const onA = { items: a.runtime.listItems(id, {}).items, turns: a.runtime.listTurns(id), conversation: a.runtime.getConversation(id) };
    const onB = { items: (await b.runtime.pages.listItems(id, {})).items, turns: await b.runtime.pages.listTurns(id), conversation: await b.runtime.pages.getConversation(id) };
    expect(onA.items).toEqual(onB.items);
    expect(onA.turns.map(({ usage: _usage, ...turn }) => turn)).toEqual(onB.turns.map(({ usage: _usage, ...turn }) => turn));
    expect(onA.conversation.status).toBe("idle");
    expect(onB.conversation.status).toBe("idle");
    // And it still works: a new turn runs.
    const next = await a.runtime.sendMessage(id, { text: "again", mode: "auto" });
    expect((await a.turnEnded(id, next.turn!.id)).status).toBe("completed");
  });
});
