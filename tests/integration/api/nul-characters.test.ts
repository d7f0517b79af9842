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
  fs.writeFileSync(path.join(temp.home, "config.json"), JSON.stringify({ approvals: { shell: "auto" } }));
  server = await startServerProcess(temp.home);
});

afterAll(async () => {
  await server?.stop();
  cleanup?.();
});

describe("NUL characters", () => {
  it("a message and a tool's output holding NUL (and U+FFFF) are kept exactly and read back as sent", async () => {
    const text = `nul\u0000here, escaped \\u0000 stays text, \uffff0 and \uffff\uffff too [[tool:shell {"command":"printf 'before\\\\000after'"}]]`;
    const created = await server.api("/api/conversations", { method: "POST", body: JSON.stringify({ text, cwd: project }) });
    expect(created.status).toBe(201);
    const { conversation } = await created.json();
    await pollUntil(async () => (await (await server.api(`/api/conversations/${conversation.id}`)).json()).conversation.status === "idle", { what: "the turn to end" });
    const { items } = await (await server.api(`/api/conversations/${conversation.id}/items`)).json();
    expect(items.find((item: { kind: string }) => item.kind === "user_message").text).toBe(text);
    const tool = items.find((item: { kind: string }) => item.kind === "tool_call");
    expect(tool, JSON.stringify(tool)).toMatchObject({ status: "completed" });
    expect(tool.output).toContain("before\u0000after");
  });

  it("a requestKey holding NUL keys a creation and a message like any other key", async () => {
    const body = JSON.stringify({ text: "keyed", requestKey: "key\u0000one" });
    const first = await server.api("/api/conversations", { method: "POST", body });
    expect(first.status, await first.clone().text()).toBe(201);
    const again = await server.api("/api/conversations", { method: "POST", body });
    expect(again.status).toBe(201);
    const { conversation } = await first.json();
    expect((await again.json()).conversation.id).toBe(conversation.id);
    await pollUntil(async () => (await (await server.api(`/api/conversations/${conversation.id}`)).json()).conversation.status === "idle", { what: "the turn to end" });
    const message = JSON.stringify({ text: "again", requestKey: "\u0000" });
    const sent = await server.api(`/api/conversations/${conversation.id}/messages`, { method: "POST", body: message });
    expect(sent.status, await sent.clone().text()).toBe(202);
    const resent = await server.api(`/api/conversations/${conversation.id}/messages`, { method: "POST", body: message });
    expect((await resent.json()).message.id).toBe((await sent.json()).message.id);
  });
});
