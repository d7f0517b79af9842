import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { LINK_PROTOCOL, MACHINE_CONNECT_PATH } from "../../../lib/machines/link-protocol";
import { usePostgresPerFile } from "../../support/embedded-postgres";
import { pollUntil } from "../../support/poll";
import { startClusterServer, type ClusterServer } from "../../support/cluster-server";
import { startMachineProcess } from "../../support/machine-process";
import { makeTempHome } from "../../support/temp-home";

/**
 * DESIGN §10c, a machine's link in a cluster: one link per machine across every node (the
 * database decides between two dials at the same instant), each machine write with its own
 * outcome, and the link's connectedAt shown by every node. Two real nodes on a real PostgreSQL.
 */
const database = usePostgresPerFile();
let a: ClusterServer;
let b: ClusterServer;
let temp: ReturnType<typeof makeTempHome>;

beforeAll(async () => {
  [a, b] = await Promise.all([startClusterServer(database.postgres.url, 3272), startClusterServer(database.postgres.url, 3273)]);
  temp = makeTempHome("atrium-cluster-claims-");
}, 90_000);

afterAll(async () => {
  await Promise.all([a?.cleanup(), b?.cleanup()]);
  temp?.cleanup();
});

async function addMachine(server: ClusterServer, name: string): Promise<{ id: string; token: string }> {
  const added = await server.api("/api/machines", { method: "POST", body: JSON.stringify({ name }) });
  expect(added.status).toBe(201);
  const { machine, token } = (await added.json()) as { machine: { id: string }; token: string };
  return { id: machine.id, token };
}

interface Dial {
  /** "linked": the gateway said welcome; else the HTTP status it refused the upgrade with, or "closed" (closed after the hello). */
  outcome: Promise<"linked" | "closed" | number>;
  body: Promise<string>;
  socket: WebSocket;
  /** Resolves once the upgrade is done (the link claimed), before any hello. */
  opened: Promise<void>;
  /** With `hello: false`: says the hello now. */
  sayHello(): void;
}

function helloFrame(): string {
  return JSON.stringify({ type: "hello", protocol: LINK_PROTOCOL, name: null, hostname: "twin", platform: "linux-x64", roots: ["/tmp"], sandbox: "off" });
}

/** A machine's dial as `atrium machine connect` makes it: the upgrade with the token, then its hello (held back with `hello: false`). */
function dial(server: ClusterServer, token: string, { hello = true } = {}): Dial {
  const socket = new WebSocket(`${server.url.replace(/^http/, "ws")}${MACHINE_CONNECT_PATH}`, { headers: { authorization: `Bearer ${token}` } });
  let body: (text: string) => void = () => undefined;
  const bodyText = new Promise<string>((resolve) => (body = resolve));
  const outcome = new Promise<"linked" | "closed" | number>((resolve) => {
    socket.on("unexpected-response", (_request, response) => {
      let text = "";
      response.on("data", (chunk: Buffer) => (text += chunk.toString()));
      response.on("end", () => body(text));
      resolve(response.statusCode ?? 0);
    });
    socket.on("open", () => {
      if (hello) socket.send(helloFrame());
    });
    socket.on("message", (data) => {
      if ((JSON.parse(data.toString()) as { type: string }).type === "welcome") resolve("linked");
    });
    socket.on("close", () => resolve("closed"));
    socket.on("error", () => undefined);
  });
  const opened = new Promise<void>((resolve) => socket.once("open", () => resolve()));
  return { outcome, body: bodyText, socket, opened, sayHello: () => socket.send(helloFrame()) };
}

function closed(socket: WebSocket): Promise<void> {
  return new Promise((resolve) => {
    if (socket.readyState === WebSocket.CLOSED) resolve();
    else socket.once("close", () => resolve());
  });
}

async function linkedNode(machineId: string): Promise<string | null> {
  return (await database.pool.query("SELECT linked_node FROM atrium_machines WHERE id = $1", [machineId])).rows[0]?.linked_node ?? null;
}

describe("a machine's link across the nodes of a cluster", () => {
  it("two dials of one token to two nodes at the same instant: exactly one keeps the link, the other is refused as a second link is", async () => {
    const machine = await addMachine(a, "twin-dialled");
    await pollUntil(async () => (await b.api(`/api/machines/${machine.id}`)).status === 200, { what: "B to know the machine" });
    for (let round = 0; round < 5; round += 1) {
      const dials = [dial(a, machine.token), dial(b, machine.token)];
      const outcomes = await Promise.all(dials.map((each) => each.outcome));
      expect(outcomes.filter((outcome) => outcome === "linked"), `round ${round}: ${JSON.stringify(outcomes)}`).toHaveLength(1);
      const winner = outcomes.indexOf("linked");
      const loser = dials[1 - winner]!;
      const lost = outcomes[1 - winner];
      // Refused before the WebSocket as a second link on one node is (409 machine_connected), or closed at its hello.
      if (lost !== "closed") {
        expect(lost).toBe(409);
        expect(JSON.parse(await loser.body).error.code).toBe("machine_connected");
      }
      const winnerNode = [a, b][winner]!.nodeId;
      expect(await linkedNode(machine.id)).toBe(winnerNode);
      // Still the winner's a moment later: the loser left nothing behind.
      await pollUntil(async () => (await Promise.all([a, b].map(async (server) => ((await (await server.api(`/api/machines/${machine.id}`)).json()) as { machine: { status: string } }).machine.status))).every((status) => status === "online"), {
        what: "both nodes to list the machine online",
      });
      expect(await linkedNode(machine.id)).toBe(winnerNode);
      dials[winner]!.socket.close();
      await pollUntil(async () => (await linkedNode(machine.id)) === null, { what: `round ${round}: the link to be let go` });
    }
  }, 60_000);

  it("an older dial's end never lets go of a newer dial's claim: a dial to the other node is refused and the newer dial links, so the machine has one link", async () => {
    const machine = await addMachine(a, "older-dial");
    await pollUntil(async () => (await b.api(`/api/machines/${machine.id}`)).status === 200, { what: "B to know the machine" });
    const older = dial(a, machine.token, { hello: false });
    await older.opened;
    const newer = dial(a, machine.token, { hello: false });
    await newer.opened;
    expect(await linkedNode(machine.id)).toBe(a.nodeId);
    older.socket.close();
    await closed(older.socket);
    // Queued behind whatever A wrote when the older dial ended (A's writes go out in order).
    await addMachine(a, "older-dial-barrier");
    const elsewhere = dial(b, machine.token);
    expect(await elsewhere.outcome).toBe(409);
    expect(JSON.parse(await elsewhere.body).error.code).toBe("machine_connected");
    newer.sayHello();
    expect(await newer.outcome).toBe("linked");
    expect(await linkedNode(machine.id)).toBe(a.nodeId);
    newer.socket.close();
    await pollUntil(async () => (await linkedNode(machine.id)) === null, { what: "the newer dial's link to be let go" });
  }, 60_000);

  it("a claim taken over by another node before the hello (this node was not seen for a lease): the link is cut at its mark, never held on two nodes", async () => {
    const machine = await addMachine(a, "taken-over");
    const late = dial(a, machine.token, { hello: false });
    await late.opened;
    expect(await linkedNode(machine.id)).toBe(a.nodeId);
    // What B's claim does once A's lease ran out: the row names B.
    await database.pool.query("UPDATE atrium_machines SET linked_node = $2 WHERE id = $1", [machine.id, b.nodeId]);
    const cut = new Promise<number>((resolve) => late.socket.once("close", (code) => resolve(code)));
    late.sayHello();
    expect(await cut).toBe(1013);
    expect(await linkedNode(machine.id)).not.toBe(a.nodeId);
  }, 30_000);

  it("a machine revoked while its dial is being claimed gets 401, as a revoked token does (the machine stops redialling), not 409", async () => {
    const machine = await addMachine(a, "revoked-during-claim");
    // Gone from the database, while A's copy (no notice sent) still knows the token: A's claim finds no row.
    await database.pool.query("DELETE FROM atrium_machines WHERE id = $1", [machine.id]);
    const refused = dial(a, machine.token);
    expect(await refused.outcome).toBe(401);
    expect(JSON.parse(await refused.body).error.code).toBe("unauthorized");
  });

  it("a dial closed before its hello, and one refused at its hello, let their claims go", async () => {
    const machine = await addMachine(a, "released-claims");
    const quiet = dial(a, machine.token, { hello: false });
    await quiet.opened;
    expect(await linkedNode(machine.id)).toBe(a.nodeId);
    quiet.socket.close();
    await pollUntil(async () => (await linkedNode(machine.id)) === null, { what: "the quiet dial's claim to be let go" });

    const rude = dial(a, machine.token, { hello: false });
    await rude.opened;
    rude.socket.send(JSON.stringify({ type: "not-a-hello" }));
    expect(await rude.outcome).toBe("closed");
    await pollUntil(async () => (await linkedNode(machine.id)) === null, { what: "the refused dial's claim to be let go" });
  });

  it("a claim a running node left behind (its let-go failed) is freed by that node, so the other node takes the machine", async () => {
    const machine = await addMachine(a, "left-behind");
    await pollUntil(async () => (await b.api(`/api/machines/${machine.id}`)).status === 200, { what: "B to know the machine" });
    await database.pool.query("UPDATE atrium_machines SET linked_node = $2, linked_at = now() WHERE id = $1", [machine.id, a.nodeId]);
    await pollUntil(async () => (await linkedNode(machine.id)) === null, { what: "A to free the claim it has no dial for" });
    const onB = dial(b, machine.token);
    expect(await onB.outcome).toBe("linked");
    onB.socket.close();
    await pollUntil(async () => (await linkedNode(machine.id)) === null, { what: "B's link to be let go" });
  }, 30_000);

  it("a node that stops cleanly hands back every link marked as its own, a stale claim too, before it exits", async () => {
    const c = await startClusterServer(database.postgres.url, 55471);
    try {
      const linked = await addMachine(c, "linked-to-stopping-node");
      const stale = await addMachine(c, "stale-claim");
      const live = dial(c, linked.token);
      expect(await live.outcome).toBe("linked");
      // A let-go that failed earlier: the row still names C though C has no link to the machine.
      await database.pool.query("UPDATE atrium_machines SET linked_node = $2 WHERE id = $1", [stale.id, c.nodeId]);
      expect(await linkedNode(linked.id)).toBe(c.nodeId);
      await c.stop();
      expect(await linkedNode(linked.id)).toBeNull();
      expect(await linkedNode(stale.id)).toBeNull();
    } finally {
      await c.cleanup();
    }
  }, 90_000);

  it("connectedAt of a machine linked to another node is the real one, on every node", async () => {
    const machine = await addMachine(a, "connected-at");
    const laptop = startMachineProcess({ url: b.url, token: machine.token, home: path.join(temp.home, "connected-home"), roots: [temp.home] });
    try {
      const onB = await pollUntil(
        async () => {
          const { machine: listed } = (await (await b.api(`/api/machines/${machine.id}`)).json()) as { machine: { status: string; connectedAt: string | null } };
          return listed.status === "online" && listed.connectedAt ? listed : undefined;
        },
        { what: "B to list the machine online with its connectedAt" },
      );
      const onA = await pollUntil(
        async () => {
          const { machines } = (await (await a.api("/api/machines")).json()) as { machines: Array<{ id: string; status: string; connectedAt: string | null }> };
          const listed = machines.find((candidate) => candidate.id === machine.id);
          return listed?.status === "online" ? listed : undefined;
        },
        { what: "A to list the machine online" },
      );
      expect(onA.connectedAt).toBe(onB.connectedAt);
    } finally {
      await laptop.stop();
    }
  });

  it("a link whose mark the database refuses is cut (1013) so the machine redials, never left linked where no other node sees it", async () => {
    const machine = await addMachine(a, "unmarked-link");
    await database.pool.query(`
      CREATE FUNCTION atrium_test_refuse_mark() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
        IF NEW.id = '${machine.id}' AND NEW.linked_at IS NOT NULL AND OLD.linked_at IS NULL THEN RAISE EXCEPTION 'mark refused by the test'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER atrium_test_refuse_mark BEFORE UPDATE ON atrium_machines FOR EACH ROW EXECUTE FUNCTION atrium_test_refuse_mark();`);
    try {
      const refused = dial(a, machine.token);
      const cut = new Promise<number>((resolve) => refused.socket.once("close", (code) => resolve(code)));
      expect(await refused.outcome).toBe("linked");
      expect(await cut).toBe(1013);
      await pollUntil(async () => (await linkedNode(machine.id)) === null, { what: "the cut link's claim to be let go" });
    } finally {
      await database.pool.query("DROP TRIGGER IF EXISTS atrium_test_refuse_mark ON atrium_machines; DROP FUNCTION IF EXISTS atrium_test_refuse_mark()");
    }
    // Its redial, once the database takes the mark, links and is seen on the other node.
    const redial = dial(a, machine.token);
    expect(await redial.outcome).toBe("linked");
    await pollUntil(async () => (await database.pool.query("SELECT linked_at FROM atrium_machines WHERE id = $1", [machine.id])).rows[0]?.linked_at !== null, { what: "the redial's mark" });
    await pollUntil(async () => ((await (await b.api(`/api/machines/${machine.id}`)).json()) as { machine: { status: string } }).machine.status === "online", { what: "B to see the machine online" });
    redial.socket.close();
  }, 30_000);

  it("a machine write the database refuses fails only that write: the next add of another machine is stored and answered 201", async () => {
    const doomed = await addMachine(a, "doomed-hello");
    const root = fs.realpathSync(temp.home);
    // The record its hello brings (lastSeenAt set) is refused: a write no request waits for.
    await database.pool.query(`
      CREATE FUNCTION atrium_test_refuse_hello() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
        IF NEW.id = '${doomed.id}' AND NEW.record->>'lastSeenAt' IS NOT NULL THEN RAISE EXCEPTION 'refused by the test'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER atrium_test_refuse_hello BEFORE UPDATE ON atrium_machines FOR EACH ROW EXECUTE FUNCTION atrium_test_refuse_hello();`);
    const laptop = startMachineProcess({ url: a.url, token: doomed.token, home: path.join(temp.home, "doomed-home"), roots: [root] });
    try {
      await pollUntil(async () => (/a write to the database failed: error: refused by the test/.test(a.output()) ? true : undefined), { what: "A's write of the machine's hello to be refused" });
      const other = await a.api("/api/machines", { method: "POST", body: JSON.stringify({ name: "unrelated-add" }) });
      expect(other.status, await other.clone().text()).toBe(201);
      const { machine } = (await other.json()) as { machine: { id: string } };
      expect((await database.pool.query("SELECT 1 FROM atrium_machines WHERE id = $1", [machine.id])).rowCount).toBe(1);
    } finally {
      await laptop.stop();
      await database.pool.query("DROP TRIGGER IF EXISTS atrium_test_refuse_hello ON atrium_machines; DROP FUNCTION IF EXISTS atrium_test_refuse_hello()");
    }
  });
});
