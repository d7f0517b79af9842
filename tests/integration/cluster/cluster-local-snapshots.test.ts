import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { usePostgresPerFile } from "../../support/embedded-postgres";
import { pollUntil } from "../../support/poll";
import { startClusterServer, type ClusterServer } from "../../support/cluster-server";
import { makeTempHome } from "../../support/temp-home";

/**
 * DESIGN §10c: the built-in machine's file snapshots stay on the node that took them. A
 * conversation on `local` that moved to another node cannot show its earlier turns' changes or
 * restore files from there: the node says so (409 snapshots_elsewhere), instead of a silent empty
 * diff or a restart that restores nothing; a restart without files still works.
 */
const database = usePostgresPerFile();
const CONFIG = { approvals: { shell: "auto", write_file: "auto", edit_file: "auto" } };
let a: ClusterServer;
let b: ClusterServer;
let temp: ReturnType<typeof makeTempHome>;

beforeAll(async () => {
  [a, b] = await Promise.all([startClusterServer(database.postgres.url, 3278, CONFIG), startClusterServer(database.postgres.url, 3279, CONFIG)]);
  temp = makeTempHome("atrium-cluster-snapshots-");
}, 90_000);

afterAll(async () => {
  await Promise.all([a?.cleanup(), b?.cleanup()]);
  temp?.cleanup();
});

async function ended(server: ClusterServer, turnId: string): Promise<string> {
  return pollUntil(
    async () => {
      const response = await server.api(`/api/turns/${turnId}`);
      if (response.status !== 200) return false;
      const status = ((await response.json()) as { turn: { status: string } }).turn.status;
      return status !== "running" && status;
    },
    { what: `turn ${turnId} to end`, timeoutMs: 30_000 },
  );
}

async function errorOf(response: Response): Promise<{ status: number; code: string; message: string }> {
  const { error } = (await response.json()) as { error: { code: string; message: string } };
  return { status: response.status, ...error };
}

describe("the built-in machine's snapshots on a cluster", () => {
  it("on the node that took the snapshots, a working directory deleted since is not 'snapshots elsewhere': the turn shows no changes, as on a single server", async () => {
    const cwd = path.join(fs.realpathSync(temp.home), "gone-later");
    fs.mkdirSync(cwd);
    const created = await b.api("/api/conversations", {
      method: "POST",
      body: JSON.stringify({ text: `[[tool:write_file ${JSON.stringify({ path: "made.txt", content: "made on B\n" })}]]`, cwd }),
    });
    expect(created.status).toBe(201);
    const { turn } = (await created.json()) as { turn: { id: string } };
    expect(await ended(b, turn.id)).toBe("completed");
    const before = await b.api(`/api/turns/${turn.id}/changes`);
    expect(before.status).toBe(200);
    expect(((await before.json()) as { files: Array<{ path: string }> }).files.map((file) => file.path)).toEqual(["made.txt"]);

    fs.rmSync(cwd, { recursive: true, force: true });
    // The snapshots are still in B's store: reading them fails for another reason, which is not a 409.
    const after = await b.api(`/api/turns/${turn.id}/changes`);
    expect(after.status, await after.clone().text()).toBe(200);
  }, 60_000);

  it("after the conversation moved to another node, its turn's changes and a restart with files are refused with 409 snapshots_elsewhere", async () => {
    const cwd = fs.realpathSync(temp.home);
    const created = await a.api("/api/conversations", {
      method: "POST",
      body: JSON.stringify({ text: `[[tool:write_file ${JSON.stringify({ path: "made.txt", content: "made on A\n" })}]]`, cwd }),
    });
    expect(created.status).toBe(201);
    const { conversation, message, turn } = (await created.json()) as { conversation: { id: string }; message: { id: string }; turn: { id: string } };
    expect(await ended(a, turn.id)).toBe("completed");
    // While A holds it, B's request reaches A's snapshots.
    const onA = await b.api(`/api/turns/${turn.id}/changes`);
    expect(onA.status).toBe(200);
    expect(((await onA.json()) as { files: Array<{ path: string }> }).files.map((file) => file.path)).toEqual(["made.txt"]);

    // A stops cleanly (its lease handed back); B takes the conversation at its next request.
    await a.stop();
    // (B may still believe A holds it for a moment: that answer is a retryable 503 node_unavailable.)
    const refused = await pollUntil(
      async () => {
        const answer = await errorOf(await b.api(`/api/turns/${turn.id}/changes`));
        return answer.code !== "node_unavailable" && answer;
      },
      { what: "B to answer for the conversation" },
    );
    expect(refused).toMatchObject({ status: 409, code: "snapshots_elsewhere" });
    expect(refused.message).toMatch(/built-in machine/);
    const lease = await database.pool.query("SELECT node_id FROM atrium_leases WHERE conversation_id = $1 AND expires_at > clock_timestamp()", [conversation.id]);
    expect(lease.rows[0]?.node_id).toBe(b.nodeId);

    expect(await errorOf(await b.api(`/api/conversations/${conversation.id}/rewind?itemId=${message.id}`))).toMatchObject({ status: 409, code: "snapshots_elsewhere" });
    const before = await b.api(`/api/conversations?archived=all`);
    const count = ((await before.json()) as { conversations: unknown[] }).conversations.length;
    const rewind = await b.api(`/api/conversations/${conversation.id}/rewind`, { method: "POST", body: JSON.stringify({ itemId: message.id, restoreFiles: true }) });
    expect(await errorOf(rewind)).toMatchObject({ status: 409, code: "snapshots_elsewhere" });
    // Refused before anything happened: no fork made, the file left as it is.
    expect(((await (await b.api(`/api/conversations?archived=all`)).json()) as { conversations: unknown[] }).conversations).toHaveLength(count);
    expect(fs.readFileSync(path.join(cwd, "made.txt"), "utf8")).toBe("made on A\n");
    // Without files, a restart still works on B.
    const plain = await b.api(`/api/conversations/${conversation.id}/rewind`, { method: "POST", body: JSON.stringify({ itemId: message.id }) });
    expect(plain.status).toBe(201);
  }, 90_000);
});
