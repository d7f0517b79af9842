import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { usePostgresPerFile } from "../../support/embedded-postgres";
import { pollUntil } from "../../support/poll";
import { startClusterServer, type ClusterServer } from "../../support/cluster-server";

/**
 * DESIGN §8 and §10c: a creation's requestKey is one conversation however its copies are spread
 * over the nodes. Identical keyed creations sent at the same instant to two real server processes
 * on one real PostgreSQL make one conversation, and every copy is answered as a replay on one
 * node is (201, the same conversation and first turn).
 */
const database = usePostgresPerFile();
let a: ClusterServer;
let b: ClusterServer;

const ROUNDS = 8;
const COPIES = 4;

beforeAll(async () => {
  [a, b] = await Promise.all([startClusterServer(database.postgres.url, 3161), startClusterServer(database.postgres.url, 3162)]);
}, 90_000);

afterAll(async () => {
  await Promise.all([a?.cleanup(), b?.cleanup()]);
});

type Created = { conversation: { id: string }; turn: { id: string } | null };

async function create(server: ClusterServer, body: object): Promise<{ status: number; body: Created & { error?: { code: string } } }> {
  const answer = await server.api("/api/conversations", { method: "POST", body: JSON.stringify(body) });
  return { status: answer.status, body: (await answer.json()) as Created & { error?: { code: string } } };
}

async function conversationsWithKey(requestKey: string): Promise<string[]> {
  const rows = await database.pool.query<{ conversation_id: string }>(
    "SELECT conversation_id FROM atrium_records WHERE stream = 'metadata' AND seq = 1 AND record->>'requestKey' = $1 ORDER BY conversation_id",
    [requestKey],
  );
  return rows.rows.map((row) => row.conversation_id);
}

describe("a keyed creation sent to two nodes at once", () => {
  it(`makes one conversation per key: ${ROUNDS} rounds of ${COPIES} identical creations split over A and B`, async () => {
    const failures: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const requestKey = `two-node-race-${round}`;
      const body = { text: `made once, round ${round}`, requestKey };
      // Every copy is sent before any is answered: A, B, A, B…
      const answers = await Promise.all(Array.from({ length: COPIES }, (_, copy) => create(copy % 2 === 0 ? a : b, body)));
      const made = await conversationsWithKey(requestKey);
      const ids = new Set(answers.map((answer) => answer.body.conversation?.id));
      const turns = new Set(answers.map((answer) => answer.body.turn?.id));
      const statuses = answers.map((answer) => answer.status);
      if (made.length !== 1 || ids.size !== 1 || turns.size !== 1 || statuses.some((status) => status !== 201)) {
        failures.push(`round ${round}: ${made.length} conversations, answers ${JSON.stringify(answers.map((answer) => [answer.status, answer.body.conversation?.id ?? answer.body.error?.code, answer.body.turn?.id]))}`);
        continue;
      }
      expect([...ids]).toEqual(made);
      expect([...turns][0]).toEqual(expect.any(String));
    }
    expect(failures).toEqual([]);
    // A copy that lost keeps nothing: no conversation of its own, no lease held on nothing.
    const orphanLeases = await database.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM atrium_leases l
        WHERE l.expires_at > clock_timestamp() AND NOT EXISTS (SELECT 1 FROM atrium_records r WHERE r.conversation_id = l.conversation_id)`,
    );
    expect(orphanLeases.rows[0]!.n).toBe(0);
    // The race was run, not dodged: a creation that lost the key's claim leaves only its handed-back lease row.
    const lost = await database.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM atrium_leases l WHERE NOT EXISTS (SELECT 1 FROM atrium_records r WHERE r.conversation_id = l.conversation_id)",
    );
    expect(lost.rows[0]!.n, "rounds in which two nodes' creations met at the key's claim").toBeGreaterThan(0);
  }, 120_000);

  it("answers a copy with another body 409 idempotency_conflict on either node, the first creation standing alone", async () => {
    const requestKey = "two-node-conflict-0001";
    const answers = await Promise.all([
      create(a, { text: "the first body", requestKey }),
      create(b, { text: "another body", requestKey }),
    ]);
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([201, 409]);
    const refused = answers.find((answer) => answer.status === 409)!;
    expect(refused.body.error?.code).toBe("idempotency_conflict");
    const made = await conversationsWithKey(requestKey);
    expect(made).toEqual([answers.find((answer) => answer.status === 201)!.body.conversation.id]);
  });

  it("answers a key whose conversation was deleted 404 on every node, as one node does, and creates nothing", async () => {
    const requestKey = "two-node-deleted-0001";
    const body = { text: "made, then deleted", requestKey };
    const first = await create(a, body);
    expect(first.status).toBe(201);
    const id = first.body.conversation.id;
    // Deleted on B once its first turn is over (a running turn makes a delete 409).
    const deleted = await pollUntil(async () => {
      const status = (await b.api(`/api/conversations/${id}`, { method: "DELETE" })).status;
      return status === 409 ? undefined : status;
    }, { timeoutMs: 30_000, what: "the delete, once the first turn is over" });
    expect(deleted).toBe(204);
    const again = await Promise.all([create(a, body), create(b, body)]);
    expect(again.map((answer) => [answer.status, answer.body.error?.code])).toEqual([
      [404, "not_found"],
      [404, "not_found"],
    ]);
    expect(await conversationsWithKey(requestKey)).toEqual([id]);
  });
});
