import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMachineProcess } from "../../support/machine-process";
import { makeTempHome } from "../../support/temp-home";
import { pauseListeners, usePostgresPerFile } from "../../support/embedded-postgres";
import { pollUntil } from "../../support/poll";
import { rawRequest } from "../../support/raw-http";
import { connectSse } from "../../support/sse-client";
import { startClusterServer, type ClusterServer } from "../../support/cluster-server";
import { TEST_TOKEN } from "../../support/server-process";

/**
 * DESIGN §10c, what every node shares beside the records (issue 24): browser sessions in
 * PostgreSQL (hashes only), a creation's requestKey recognised on another node at once, and
 * `Conversation.node`, machines added on any node and revoked everywhere. Two real server
 * processes on one real PostgreSQL, and a real machine process.
 */
const database = usePostgresPerFile();
let a: ClusterServer;
let b: ClusterServer;

beforeAll(async () => {
  [a, b] = await Promise.all([startClusterServer(database.postgres.url, 3133), startClusterServer(database.postgres.url, 3134)]);
}, 90_000);

afterAll(async () => {
  await Promise.all([a?.cleanup(), b?.cleanup()]);
});

async function signIn(server: ClusterServer, browser = "cluster-browser/1.0"): Promise<string> {
  const answer = await rawRequest(server.url, `/auth/signin?token=${TEST_TOKEN}`, { headers: { "user-agent": browser } });
  expect(answer.status).toBe(303);
  return String(answer.headers["set-cookie"]).split(";")[0]!;
}

async function listWith(server: ClusterServer, cookie: string): Promise<number> {
  return (await rawRequest(server.url, "/api/conversations", { headers: { cookie } })).status;
}

async function sessionsOn(server: ClusterServer, cookie: string): Promise<Array<{ id: string; browser: string; current: boolean }>> {
  const answer = await rawRequest(server.url, "/api/auth/sessions", { headers: { cookie } });
  expect(answer.status).toBe(200);
  return (JSON.parse(answer.body) as { sessions: Array<{ id: string; browser: string; current: boolean }> }).sessions;
}

describe("browser sessions on a cluster", () => {
  it("a cookie signed in on A works on B at once, and only its hash is in the database", async () => {
    const cookie = await signIn(a, "signed-in-on-a/1.0");
    expect(await listWith(b, cookie)).toBe(200);
    const listed = await sessionsOn(b, cookie);
    expect(listed.filter((session) => session.current).map((session) => session.browser)).toEqual(["signed-in-on-a/1.0"]);
    const rows = await database.pool.query("SELECT hash, browser FROM atrium_sessions");
    const value = cookie.split("=")[1]!;
    expect(JSON.stringify(rows.rows)).not.toContain(value);
    expect(rows.rows.some((row) => row.browser === "signed-in-on-a/1.0")).toBe(true);
    expect(await listWith(b, "atrium_session=not-a-session")).toBe(401);
  });

  it("a cookie B has not heard of yet (no notice reached it) is looked up in the database", async () => {
    const resume = await pauseListeners(database.pool);
    try {
      const cookie = await signIn(a, "unheard-of/1.0");
      expect(await listWith(b, cookie)).toBe(200);
    } finally {
      resume();
    }
  });

  it("signing out on B refuses the cookie on A at once", async () => {
    const cookie = await signIn(a);
    expect(await listWith(a, cookie)).toBe(200);
    const signedOut = await rawRequest(b.url, "/auth/signout", { method: "POST", headers: { cookie, origin: b.url } });
    expect(signedOut.status).toBe(303);
    const started = performance.now();
    await pollUntil(async () => (await listWith(a, cookie)) === 401, { what: "A refusing the cookie ended on B", timeoutMs: 2_000 });
    console.log(`sign-out on B refused on A after ${(performance.now() - started).toFixed(1)} ms`);
  });

  it("'sign out everywhere' on A ends sessions made on B, on both nodes", async () => {
    const one = await signIn(b);
    const two = await signIn(a);
    expect(await listWith(a, one)).toBe(200);
    expect(await listWith(b, two)).toBe(200);
    const ended = await rawRequest(a.url, "/api/auth/sessions", { method: "DELETE", headers: { cookie: two, origin: a.url } });
    expect(ended.status).toBe(204);
    await pollUntil(async () => (await listWith(b, one)) === 401 && (await listWith(b, two)) === 401 && (await listWith(a, one)) === 401, {
      what: "every node refusing every ended session",
      timeoutMs: 2_000,
    });
    const left = await database.pool.query("SELECT count(*)::int AS n FROM atrium_sessions");
    expect(left.rows[0].n).toBe(0);
  });
});

describe("requestKey across nodes", () => {
  it("a creation retried on B before B has indexed it answers the first one, with one record", async () => {
    const body = JSON.stringify({ text: "made once across nodes", requestKey: "cross-node-create-0001" });
    // B's index must not have the creation yet: every node's listening connection is paused, so
    // no notice reaches B (A indexes its own writes without one) until they run again.
    const resume = await pauseListeners(database.pool);
    let first: Response;
    let again: Response;
    try {
      first = await a.api("/api/conversations", { method: "POST", body });
      expect(first.status).toBe(201);
      again = await b.api("/api/conversations", { method: "POST", body });
    } finally {
      resume();
    }
    const made = (await first.json()) as { conversation: { id: string }; turn: { id: string } };
    expect(again.status).toBe(201);
    const replayed = (await again.json()) as { conversation: { id: string }; turn: { id: string } };
    expect(replayed.conversation.id).toBe(made.conversation.id);
    expect(replayed.turn.id).toBe(made.turn.id);
    const count = await database.pool.query("SELECT count(*)::int AS n FROM atrium_records WHERE stream = 'metadata' AND record->>'requestKey' = 'cross-node-create-0001'");
    expect(count.rows[0].n).toBe(1);
    const other = await b.api("/api/conversations", { method: "POST", body: JSON.stringify({ text: "another body", requestKey: "cross-node-create-0001" }) });
    expect(other.status).toBe(409);
    expect(((await other.json()) as { error: { code: string } }).error.code).toBe("idempotency_conflict");
  });

  it("a creation sent twice at once to one node with one requestKey makes one conversation (the second waits for the first)", async () => {
    const body = JSON.stringify({ text: "double submit", requestKey: "same-node-double-0001" });
    const answers = await Promise.all(Array.from({ length: 4 }, () => b.api("/api/conversations", { method: "POST", body })));
    const made = await Promise.all(answers.map(async (answer) => ({ status: answer.status, id: ((await answer.json()) as { conversation: { id: string } }).conversation.id })));
    expect(made.map((answer) => answer.status)).toEqual([201, 201, 201, 201]);
    expect(new Set(made.map((answer) => answer.id)).size).toBe(1);
    const count = await database.pool.query("SELECT count(*)::int AS n FROM atrium_records WHERE stream = 'metadata' AND record->>'requestKey' = 'same-node-double-0001'");
    expect(count.rows[0].n).toBe(1);
  });

  it("a message retried on B with the requestKey it was sent with on A answers the first one, with one record", async () => {
    const made = (await (await a.api("/api/conversations", { method: "POST", body: JSON.stringify({ text: "first" }) })).json()) as { conversation: { id: string } };
    const id = made.conversation.id;
    const body = JSON.stringify({ text: "sent once", requestKey: "cross-node-message-0001" });
    const first = await a.api(`/api/conversations/${id}/messages`, { method: "POST", body });
    expect([200, 202]).toContain(first.status);
    const again = await b.api(`/api/conversations/${id}/messages`, { method: "POST", body });
    expect(again.status).toBe(first.status);
    expect(((await again.json()) as { message: { id: string } }).message.id).toBe(((await first.json()) as { message: { id: string } }).message.id);
    const count = await database.pool.query(
      "SELECT count(*)::int AS n FROM atrium_records WHERE conversation_id = $1 AND record->>'requestKey' = 'cross-node-message-0001'",
      [id],
    );
    expect(count.rows[0].n).toBe(1);
  });
});

describe("Conversation.node", () => {
  it("names the node holding the lease in the list and in a single read, on either node", async () => {
    const created = (await (await a.api("/api/conversations", { method: "POST", body: JSON.stringify({ text: "held by A" }) })).json()) as {
      conversation: { id: string; node: string | null };
    };
    expect(created.conversation.node).toBe(a.nodeId);
    const id = created.conversation.id;
    await pollUntil(async () => {
      const list = (await (await b.api("/api/conversations")).json()) as { conversations: Array<{ id: string; node: string | null }> };
      return list.conversations.find((conversation) => conversation.id === id)?.node === a.nodeId;
    }, { what: "B's list naming A" });
    const read = (await (await b.api(`/api/conversations/${id}`)).json()) as { conversation: { node: string | null } };
    expect(read.conversation.node).toBe(a.nodeId);
    const onA = (await (await a.api("/api/conversations")).json()) as { conversations: Array<{ id: string; node: string | null }> };
    expect(onA.conversations.find((conversation) => conversation.id === id)?.node).toBe(a.nodeId);
  });

  it("is null in the list when no node holds the lease", async () => {
    const created = (await (await b.api("/api/conversations", { method: "POST", body: JSON.stringify({ text: "held, then let go" }) })).json()) as {
      conversation: { id: string };
    };
    const id = created.conversation.id;
    await pollUntil(async () => {
      const list = (await (await a.api("/api/conversations")).json()) as { conversations: Array<{ id: string }> };
      return list.conversations.some((conversation) => conversation.id === id);
    }, { what: "the conversation in A's list" });
    // As if its holder had died: the lease runs out (B's keeper then hears it lost it).
    await database.pool.query("UPDATE atrium_leases SET expires_at = now() - interval '1 second' WHERE conversation_id = $1", [id]);
    const list = (await (await a.api("/api/conversations")).json()) as { conversations: Array<{ id: string; node: string | null }> };
    expect(list.conversations.find((conversation) => conversation.id === id)?.node).toBeNull();
  });
});

describe("lists across nodes", () => {
  it("A lists and finds a conversation B created, right after B's 201, with no notice heard (lists answer from the database)", async () => {
    const resume = await pauseListeners(database.pool);
    try {
      const answer = await b.api("/api/conversations", { method: "POST", body: JSON.stringify({ text: "quokka lemonade across nodes" }) });
      expect(answer.status).toBe(201);
      const id = ((await answer.json()) as { conversation: { id: string } }).conversation.id;
      const list = (await (await a.api("/api/conversations")).json()) as { conversations: Array<{ id: string; node: string | null }> };
      expect(list.conversations.find((conversation) => conversation.id === id)?.node).toBe(b.nodeId);
      const found = (await (await a.api("/api/conversations?q=quokka")).json()) as { conversations: Array<{ id: string }> };
      expect(found.conversations.map((conversation) => conversation.id)).toEqual([id]);
    } finally {
      resume();
    }
  });
});

type MachineView = { id: string; name: string; status: string };

async function machinesOn(server: ClusterServer): Promise<MachineView[]> {
  return ((await (await server.api("/api/machines")).json()) as { machines: MachineView[] }).machines;
}

describe("machines on a cluster", () => {
  it("a machine added on A is listed on B, its token's hash (only) in the database", async () => {
    const temp = makeTempHome("atrium-cluster-machine-");
    try {
      const added = await a.api("/api/machines", { method: "POST", body: JSON.stringify({ name: "shared-laptop" }) });
      expect(added.status).toBe(201);
      const { machine, token } = (await added.json()) as { machine: { id: string }; token: string };
      await pollUntil(async () => (await machinesOn(b)).some((listed) => listed.id === machine.id), { what: "the machine listed on B", timeoutMs: 2_000 });
      const stored = await database.pool.query("SELECT record FROM atrium_machines WHERE id = $1", [machine.id]);
      expect(JSON.stringify(stored.rows)).not.toContain(token);
      expect(stored.rows[0].record.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    } finally {
      temp.cleanup();
    }
  });

  it("a machine added on A dials B before B has heard of it: B looks its token up; removed on A, its link on B is cut, and A lists it online meanwhile", async () => {
    const temp = makeTempHome("atrium-cluster-machine-");
    let laptop: ReturnType<typeof startMachineProcess> | undefined;
    try {
      const resume = await pauseListeners(database.pool);
      let machine: { id: string };
      let token: string;
      let root: string;
      try {
        const added = await a.api("/api/machines", { method: "POST", body: JSON.stringify({ name: "early-laptop" }) });
        expect(added.status).toBe(201);
        ({ machine, token } = (await added.json()) as { machine: { id: string }; token: string });
        root = path.join(temp.home, "work");
        fs.mkdirSync(root, { recursive: true });
        laptop = startMachineProcess({ url: b.url, token, home: path.join(temp.home, "home"), roots: [root] });
        await pollUntil(async () => (await machinesOn(b)).find((listed) => listed.id === machine.id)?.status === "online", { what: "the machine online on B", timeoutMs: 20_000 });
      } finally {
        resume();
      }
      try {
        await pollUntil(async () => (await database.pool.query("SELECT linked_node FROM atrium_machines WHERE id = $1", [machine.id])).rows[0].linked_node === b.nodeId, {
          what: "B named as the machine's link in the database",
        });
        // Linked to B, the machine is online from A too (DESIGN §10c; cluster-machine-routing.test.ts runs calls through it).
        await pollUntil(async () => (await machinesOn(a)).find((listed) => listed.id === machine.id)?.status === "online", { what: "the machine online on A" });

        const removed = await a.api(`/api/machines/${machine.id}`, { method: "DELETE" });
        expect(removed.status).toBe(204);
        let exited = false;
        void laptop!.exited.then(() => (exited = true));
        await pollUntil(() => exited, { timeoutMs: 10_000, what: "the revoked machine process to exit" });
        expect(laptop!.output()).toMatch(/revoked/);
        expect((await machinesOn(b)).map((listed) => listed.id)).not.toContain(machine.id);
      } finally {
        await laptop?.stop();
      }
    } finally {
      await laptop?.stop();
      temp.cleanup();
    }
  });

  it("a machine add or revoke the database refuses answers 503 node_unavailable and changes nothing: not listed, not published, no link cut", async () => {
    const temp = makeTempHome("atrium-cluster-machine-");
    let laptop: ReturnType<typeof startMachineProcess> | undefined;
    await database.pool.query(`
      CREATE FUNCTION atrium_test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
        IF (TG_OP = 'INSERT' AND NEW.record->>'name' = 'refused-add') OR (TG_OP = 'DELETE' AND OLD.record->>'name' = 'refused-revoke') THEN
          RAISE EXCEPTION 'refused by the test';
        END IF;
        RETURN COALESCE(NEW, OLD);
      END $$;
      CREATE TRIGGER atrium_test_refuse BEFORE INSERT OR DELETE ON atrium_machines FOR EACH ROW EXECUTE FUNCTION atrium_test_refuse();`);
    const events = await connectSse(`${a.url}/api/events`, { authorization: `Bearer ${a.token}` });
    try {
      const refused = await a.api("/api/machines", { method: "POST", body: JSON.stringify({ name: "refused-add" }) });
      expect(refused.status).toBe(503);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("node_unavailable");
      await pollUntil(async () => !(await machinesOn(a)).some((listed) => listed.name === "refused-add"), { what: "A to read its machines again without the refused one" });
      expect((await machinesOn(b)).some((listed) => listed.name === "refused-add")).toBe(false);
      expect((await database.pool.query("SELECT 1 FROM atrium_machines WHERE record->>'name' = 'refused-add'")).rowCount).toBe(0);

      const added = await a.api("/api/machines", { method: "POST", body: JSON.stringify({ name: "refused-revoke" }) });
      expect(added.status).toBe(201);
      const { machine, token } = (await added.json()) as { machine: { id: string }; token: string };
      // Events come in order: by the time the stored machine's is heard, one for the refused machine would have been.
      await events.waitFor((event) => event.event === "machine.updated" && JSON.parse(event.data).machine.id === machine.id);
      expect(events.events.filter((event) => event.data.includes("refused-add"))).toEqual([]);
      const root = path.join(temp.home, "work");
      fs.mkdirSync(root, { recursive: true });
      laptop = startMachineProcess({ url: a.url, token, home: path.join(temp.home, "home"), roots: [root] });
      await pollUntil(async () => (await machinesOn(a)).find((listed) => listed.id === machine.id)?.status === "online", { what: "the machine online on A", timeoutMs: 20_000 });
      const revoke = await a.api(`/api/machines/${machine.id}`, { method: "DELETE" });
      expect(revoke.status).toBe(503);
      expect(((await revoke.json()) as { error: { code: string } }).error.code).toBe("node_unavailable");
      // Still stored, still listed (A read its machines again), and its link was never cut.
      await pollUntil(async () => (await machinesOn(a)).find((listed) => listed.id === machine.id)?.status === "online", { what: "the machine listed online on A again" });
      expect(laptop.child.exitCode).toBeNull();
      expect(laptop.output()).not.toMatch(/revoked/);

      await database.pool.query("DROP TRIGGER atrium_test_refuse ON atrium_machines");
      expect((await a.api(`/api/machines/${machine.id}`, { method: "DELETE" })).status).toBe(204);
      // Revoked for real now: the machine hears it and stops dialling.
      await laptop.exited;
      expect(laptop.output()).toMatch(/revoked/);
    } finally {
      events.close();
      await database.pool.query("DROP TRIGGER IF EXISTS atrium_test_refuse ON atrium_machines; DROP FUNCTION IF EXISTS atrium_test_refuse()");
      await laptop?.stop();
      temp.cleanup();
    }
  });
});
