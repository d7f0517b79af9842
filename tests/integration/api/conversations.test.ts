import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServerProcess, type ServerProcess } from "../../support/server-process";
import { pollUntil } from "../../support/poll";
import { onPostgresBackend } from "../../support/postgres-backend";
import { makeTempHome } from "../../support/temp-home";

let server: ServerProcess;
let cleanup: () => void;

beforeAll(async () => {
  const temp = makeTempHome();
  cleanup = temp.cleanup;
  server = await startServerProcess(temp.home);
});

afterAll(async () => {
  await server?.stop();
  cleanup?.();
});

function waitForIdle(id: string): Promise<true> {
  return pollUntil(
    async () => (await (await server.api(`/api/conversations/${id}`)).json()).conversation.status === "idle",
    { what: `conversation ${id} to become idle` },
  );
}

describe("conversations over HTTP", () => {
  it("creates, lists, searches, pages items, renames, archives and deletes", async () => {
    const created = await server.api("/api/conversations", { method: "POST", body: JSON.stringify({ text: "Find the zebra crossing\nsecond line" }) });
    expect(created.status).toBe(201);
    const body = await created.json();
    expect(body.conversation.title).toBe("Find the zebra crossing");
    expect(body.message.id).toMatch(/^[0-9A-Z]{26}$/);
    expect(body.turn.id).toMatch(/^[0-9A-Z]{26}$/);
    const id = body.conversation.id;
    await waitForIdle(id);

    const listed = await (await server.api("/api/conversations")).json();
    expect(listed.conversations.map((conversation: { id: string }) => conversation.id)).toContain(id);
    expect(listed.nextCursor).toBeNull();
    // DESIGN §10c: no node holds a conversation of a single server; a one-node cluster names itself.
    const holder = onPostgresBackend() ? ((await (await server.api("/api/health")).json()) as { node: { id: string } }).node.id : null;
    expect(body.conversation.node).toBe(holder);
    expect(listed.conversations.find((conversation: { id: string }) => conversation.id === id).node).toBe(holder);

    const found = await (await server.api("/api/conversations?q=zebr")).json();
    expect(found.conversations.map((conversation: { id: string }) => conversation.id)).toEqual([id]);
    const byText = await (await server.api("/api/conversations?q=second")).json();
    expect(byText.conversations).toHaveLength(1);
    const none = await (await server.api("/api/conversations?q=giraffe")).json();
    expect(none.conversations).toHaveLength(0);

    const firstPage = await (await server.api(`/api/conversations/${id}/items?limit=1`)).json();
    expect(firstPage.items).toHaveLength(1);
    expect(firstPage.items[0].kind).toBe("user_message");
    const secondPage = await (await server.api(`/api/conversations/${id}/items?after=${firstPage.nextCursor}`)).json();
    expect(secondPage.items[0].kind).toBe("assistant_message");
    expect(secondPage.items[0].text).toBe("You said: Find the zebra crossing\nsecond line");
    expect(secondPage.nextCursor).toBeNull();

    const renamed = await (await server.api(`/api/conversations/${id}`, { method: "PATCH", body: JSON.stringify({ title: "Zebra" }) })).json();
    expect(renamed.conversation.title).toBe("Zebra");

    await server.api(`/api/conversations/${id}`, { method: "PATCH", body: JSON.stringify({ archived: true }) });
    const unarchived = await (await server.api("/api/conversations")).json();
    expect(unarchived.conversations.map((conversation: { id: string }) => conversation.id)).not.toContain(id);
    const archived = await (await server.api("/api/conversations?archived=true")).json();
    expect(archived.conversations.map((conversation: { id: string }) => conversation.id)).toContain(id);

    const deleted = await server.api(`/api/conversations/${id}`, { method: "DELETE" });
    expect(deleted.status).toBe(204);
    expect((await server.api(`/api/conversations/${id}`)).status).toBe(404);
  });

  it("refuses to delete while a turn runs", async () => {
    const created = await (await server.api("/api/conversations", { method: "POST", body: JSON.stringify({ text: "slow [[delay:200]] [[stream:20]]" }) })).json();
    const refused = await server.api(`/api/conversations/${created.conversation.id}`, { method: "DELETE" });
    expect(refused.status).toBe(409);
    expect((await refused.json()).error.code).toBe("turn_running");
    await server.api(`/api/conversations/${created.conversation.id}/interrupt`, { method: "POST" });
    await waitForIdle(created.conversation.id);
    expect((await server.api(`/api/conversations/${created.conversation.id}`, { method: "DELETE" })).status).toBe(204);
  });
});
