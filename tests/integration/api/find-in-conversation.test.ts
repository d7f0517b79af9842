import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServerProcess, type ServerProcess } from "../../support/server-process";
import { pollUntil } from "../../support/poll";
import { makeTempHome } from "../../support/temp-home";

let server: ServerProcess;
let cleanup: () => void;
let project: string;

beforeAll(async () => {
  const temp = makeTempHome();
  cleanup = temp.cleanup;
  project = path.join(temp.home, "project");
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, "notes.txt"), "first wombat\nsecond Wombat, third WOMBAT\n");
  server = await startServerProcess(temp.home);
});

afterAll(async () => {
  await server?.stop();
  cleanup?.();
});

async function settled(id: string): Promise<void> {
  await pollUntil(async () => (await (await server.api(`/api/conversations/${id}`)).json()).conversation.status === "idle", { what: `conversation ${id} to settle` });
}

describe("GET /api/conversations/:id/find", () => {
  it("counts matches, not messages, in messages and tool output, the newest hits first", async () => {
    const created = await server.api("/api/conversations", {
      method: "POST",
      body: JSON.stringify({ text: `wombat or wombat? [[tool:read_file {"path":"notes.txt"}]]`, cwd: project }),
    });
    const { conversation } = await created.json();
    await settled(conversation.id);

    const found = await (await server.api(`/api/conversations/${conversation.id}/find?q=WOMBAT`)).json();
    const kinds = found.hits.map((hit: { kind: string }) => hit.kind);
    expect(kinds).toContain("user_message");
    expect(kinds).toContain("tool_call");
    const tool = found.hits.find((hit: { kind: string }) => hit.kind === "tool_call");
    expect(tool.matches).toBe(3);
    const user = found.hits.find((hit: { kind: string }) => hit.kind === "user_message");
    expect(user.matches).toBe(2);
    expect(found.total).toBe(found.hits.reduce((sum: number, hit: { matches: number }) => sum + hit.matches, 0));
    expect(found.hits.map((hit: { seq: number }) => hit.seq)).toEqual([...found.hits.map((hit: { seq: number }) => hit.seq)].sort((a, b) => a - b));
    expect(found.nextCursor).toBeNull();

    // Paged backward: one hit a page, the newest first, the total always the whole session's.
    const newest = await (await server.api(`/api/conversations/${conversation.id}/find?q=wombat&limit=1`)).json();
    expect(newest.hits).toEqual([found.hits.at(-1)]);
    expect(newest.total).toBe(found.total);
    const older = await (await server.api(`/api/conversations/${conversation.id}/find?q=wombat&limit=1&before=${newest.nextCursor}`)).json();
    expect(older.hits).toEqual([found.hits.at(-2)]);

    const none = await (await server.api(`/api/conversations/${conversation.id}/find?q=giraffe`)).json();
    expect(none).toEqual({ hits: [], nextCursor: null, total: 0 });
  });

  it("answers 400 for a missing or misspelt parameter and 404 for an unknown conversation", async () => {
    const created = await (await server.api("/api/conversations", { method: "POST", body: JSON.stringify({ text: "hello" }) })).json();
    expect((await server.api(`/api/conversations/${created.conversation.id}/find`)).status).toBe(400);
    const misspelt = await server.api(`/api/conversations/${created.conversation.id}/find?q=a&befor=3`);
    expect(misspelt.status).toBe(400);
    expect((await misspelt.json()).error.code).toBe("bad_request");
    expect((await server.api(`/api/conversations/01ARZ3NDEKTSV4RRFFQ69G5FAV/find?q=a`)).status).toBe(404);
  });
});
