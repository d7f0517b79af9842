import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { POST as sendRoute } from "@/app/api/conversations/[id]/messages/route";
import { DELETE as withdrawRoute, PATCH as updateRoute } from "@/app/api/conversations/[id]/queue/[msgId]/route";
import { GET as queueRoute } from "@/app/api/conversations/[id]/queue/route";
import { MAX_WAITING_MESSAGES, MAX_WAITING_TEXT_BYTES } from "@/lib/engine/waiting-limits";
import { routesFor } from "../../support/in-process-routes";
import { startHarness, type Harness } from "../../support/runtime-harness";

// Issue 21, finding 8a: 500 queued messages of 190,000 characters were accepted (a 95 MB queue and snapshot).
let harness: Harness | undefined;
let routes: ReturnType<typeof routesFor> | undefined;
afterEach(async () => {
  routes?.close();
  routes = undefined;
  await harness?.close();
  harness = undefined;
});

/** A conversation whose turn waits for an approval, so every message sent to it waits too. */
async function busyConversation(): Promise<string> {
  harness = await startHarness();
  routes = routesFor(harness.runtime);
  const created = await harness.runtime.createConversation({ text: `[[tool:shell ${JSON.stringify({ command: "echo hi" })}]]` });
  await harness.waitForEvent(created.conversation.id, "approval.requested");
  return created.conversation.id;
}

function send(id: string, text: string, mode: "auto" | "queue" | "steer" | "jump" = "queue"): Promise<Response> {
  return routes!.call(sendRoute, { path: `/api/conversations/${id}/messages`, params: { id }, body: { text, mode } });
}

async function waiting(id: string): Promise<Array<{ id: string; text: string }>> {
  const answer = await routes!.call(queueRoute, { path: `/api/conversations/${id}/queue`, params: { id } });
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { waiting: Array<{ id: string; text: string }> }).waiting;
}

function metadataBytes(id: string): number {
  return fs.statSync(path.join(harness!.home, "conversations", id, "metadata.jsonl")).size;
}

async function expectQueueFull(answer: Response, message: RegExp): Promise<void> {
  expect(answer.status).toBe(429);
  const body = (await answer.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe("queue_full");
  expect(body.error.message).toMatch(message);
}

describe("the waiting-message cap", () => {
  it("answers the 101st waiting message 429 queue_full, whatever its mode, writing nothing; a withdrawal makes room", async () => {
    const id = await busyConversation();
    const modes = ["queue", "steer", "auto", "jump"] as const;
    for (let index = 0; index < MAX_WAITING_MESSAGES - 1; index += 1) {
      expect((await send(id, `message ${index}`, modes[index % 3])).status).toBe(202);
    }
    const last = await send(id, "the hundredth");
    expect(last.status).toBe(202);
    const before = metadataBytes(id);

    for (const mode of modes) {
      await expectQueueFull(await send(id, `one too many (${mode})`, mode), /already has 100 waiting messages/);
    }
    expect(metadataBytes(id)).toBe(before);
    const list = await waiting(id);
    expect(list).toHaveLength(MAX_WAITING_MESSAGES);
    expect(list.some((entry) => entry.text.startsWith("one too many"))).toBe(false);
    // The refused jump interrupted nothing: the turn still waits for its approval.
    expect(harness!.runtime.listTurns(id).at(-1)?.status).not.toBe("interrupted");

    const { message } = (await last.json()) as { message: { id: string } };
    const withdrawn = await routes!.call(withdrawRoute, { method: "DELETE", path: `/api/conversations/${id}/queue/${message.id}`, params: { id, msgId: message.id } });
    expect(withdrawn.status).toBe(204);
    expect((await send(id, "room again")).status).toBe(202);
    expect(await waiting(id)).toHaveLength(MAX_WAITING_MESSAGES);
    await expectQueueFull(await send(id, "and full again"), /100 waiting messages/);
  });

  it("caps the waiting text at 10 MiB of UTF-8, for new messages and for edits that grow one", async () => {
    const id = await busyConversation();
    // A message holds at most 200,000 characters: 52 of them fill all but 85,760 bytes.
    const chunk = "x".repeat(200_000);
    for (let index = 0; index < 52; index += 1) expect((await send(id, chunk)).status).toBe(202);
    const room = MAX_WAITING_TEXT_BYTES - 52 * 200_000;
    const before = metadataBytes(id);

    // Fewer characters than the room left, but more bytes: the cap counts bytes.
    const accented = "é".repeat(Math.floor(room / 2) + 1);
    expect(accented.length).toBeLessThan(room);
    await expectQueueFull(await send(id, accented), /past 10 MiB of text/);
    expect(metadataBytes(id)).toBe(before);

    const fits = await send(id, "y".repeat(room));
    expect(fits.status).toBe(202);
    const { message } = (await fits.json()) as { message: { id: string } };
    await expectQueueFull(await send(id, "z"), /past 10 MiB/);

    const grown = await routes!.call(updateRoute, {
      method: "PATCH",
      path: `/api/conversations/${id}/queue/${message.id}`,
      params: { id, msgId: message.id },
      body: { text: `${"y".repeat(room)}!` },
    });
    await expectQueueFull(grown, /past 10 MiB/);
    expect((await waiting(id)).find((entry) => entry.id === message.id)?.text).toBe("y".repeat(room));

    const shrunk = await routes!.call(updateRoute, {
      method: "PATCH",
      path: `/api/conversations/${id}/queue/${message.id}`,
      params: { id, msgId: message.id },
      body: { text: "short now" },
    });
    expect(shrunk.status).toBe(200);
    expect((await send(id, "z")).status).toBe(202);
    const total = (await waiting(id)).reduce((sum, entry) => sum + Buffer.byteLength(entry.text), 0);
    expect(total).toBeLessThanOrEqual(MAX_WAITING_TEXT_BYTES);
  });
});
