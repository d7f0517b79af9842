import fs from "node:fs";
import path from "node:path";
import { sign } from "@octokit/webhooks-methods";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pollUntil } from "../../support/poll";
import { startServerProcess, type ServerProcess } from "../../support/server-process";
import { makeTempHome } from "../../support/temp-home";

const SECRET = "webhook-secret-for-tests";
const examples = JSON.parse(
  fs.readFileSync(path.resolve(import.meta.dirname, "../../../node_modules/@octokit/webhooks-examples/api.github.com/index.json"), "utf8"),
) as Array<{ name: string; examples: Array<Record<string, unknown>> }>;

function example(name: string, action: string): Record<string, unknown> {
  const found = examples.find((definition) => definition.name === name)!.examples.find((candidate) => candidate.action === action);
  if (!found) throw new Error(`no ${name}.${action} example`);
  return found;
}

let server: ServerProcess;
let cleanup: () => void;

beforeAll(async () => {
  const temp = makeTempHome();
  cleanup = temp.cleanup;
  fs.writeFileSync(path.join(temp.home, "config.json"), JSON.stringify({ webhooks: { github: { secret: SECRET } } }));
  server = await startServerProcess(temp.home);
});

afterAll(async () => {
  await server?.stop();
  cleanup?.();
});

async function deliver(name: string, payload: unknown, signature?: string | null): Promise<Response> {
  const body = JSON.stringify(payload);
  const headers: Record<string, string> = { "content-type": "application/json", "x-github-event": name, "x-github-delivery": "d-1" };
  if (signature !== null) headers["x-hub-signature-256"] = signature ?? (await sign(SECRET, body));
  return fetch(`${server.url}/api/webhooks/github`, { method: "POST", headers, body });
}

async function objective(id: string) {
  return (await (await server.api(`/api/conversations/${id}`)).json()).conversation.objective;
}

describe("GitHub webhooks wake listening objectives", () => {
  it("wakes on a correctly signed matching event and ignores everything else", async () => {
    const created = await (await server.api("/api/conversations", { method: "POST", body: JSON.stringify({ text: "hi" }) })).json();
    const id = created.conversation.id;
    await pollUntil(async () => (await (await server.api(`/api/conversations/${id}`)).json()).conversation.status === "idle", { what: "idle" });
    const listen = '[[tool:wait_for_event {"source":"github","match":{"event":"pull_request","action":"closed"}}]]';
    const opened = await server.api(`/api/conversations/${id}/objective`, { method: "POST", body: JSON.stringify({ text: `merge the fix ${listen}` }) });
    expect(opened.status).toBe(201);
    await pollUntil(async () => (await objective(id)).status === "waiting_event", { what: "the objective to wait" });
    const slicesBefore = (await objective(id)).slices;

    const closed = example("pull_request", "closed");
    const unsigned = await deliver("pull_request", closed, null);
    expect(unsigned.status).toBe(401);
    const forged = await deliver("pull_request", closed, "sha256=0000000000000000000000000000000000000000000000000000000000000000");
    expect(forged.status).toBe(401);
    const other = await deliver("pull_request", example("pull_request", "opened"));
    expect(other.status).toBe(202);
    expect(await other.json()).toEqual({ matched: 0 });
    const tooBig = await deliver("pull_request", { ...closed, padding: "x".repeat(6 * 1024 * 1024) });
    expect(tooBig.status).toBe(413);
    expect((await objective(id)).status).toBe("waiting_event");

    const woken = await deliver("pull_request", closed);
    expect(woken.status).toBe(202);
    expect(await woken.json()).toEqual({ matched: 1 });
    await pollUntil(async () => (await objective(id)).slices > slicesBefore, { what: "a new slice" });
    // The slice's input message (the objective's status notices carry origin "objective" too), once it is listed.
    type Listed = { kind: string; origin?: string; text?: string };
    const sliceMessages = async () =>
      ((await (await server.api(`/api/conversations/${id}/items?limit=500`)).json()).items as Listed[]).filter((item) => item.kind === "user_message" && item.origin === "objective");
    await pollUntil(async () => (await sliceMessages()).length > slicesBefore, { what: "the new slice's message" });
    const slice = (await sliceMessages()).at(-1)!;
    expect(slice.text).toContain("Event: GitHub pull_request (closed)");
    expect(slice.text).toContain("Matched: event=pull_request, action=closed.");
  });
});

describe("rejected webhooks", () => {
  it("are counted, not logged one line each", async () => {
    const before = server.output().split("\n").filter((line) => line.includes("webhook")).length;
    for (let index = 0; index < 30; index += 1) {
      const answer = await deliver("issues", { action: "opened" }, "sha256=" + "0".repeat(64));
      expect(answer.status).toBe(401);
    }
    const lines = server.output().split("\n").filter((line) => line.includes("webhook"));
    expect(lines.length - before).toBeLessThanOrEqual(1);
    expect(server.output()).not.toMatch(/rejected a GitHub webhook/);
  });
});
