import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConversationEvent } from "@/lib/events/events";
import { startServerProcess, type ServerProcess } from "../../support/server-process";
import { connectSse } from "../../support/sse-client";
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

function parse(data: string): ConversationEvent {
  return JSON.parse(data) as ConversationEvent;
}

/** Rebuilds the assistant text from a snapshot and the deltas that follow it. */
function assistantText(events: ConversationEvent[]): string {
  const texts = new Map<string, string>();
  for (const event of events) {
    if (event.type === "snapshot") {
      for (const item of event.items) if (item.kind === "assistant_message") texts.set(item.id, item.text ?? "");
    } else if (event.type === "item.created" && event.item.kind === "assistant_message") {
      texts.set(event.item.id, event.item.text ?? "");
    } else if (event.type === "item.delta" && event.field === "text" && texts.has(event.itemId)) {
      texts.set(event.itemId, texts.get(event.itemId)! + event.delta);
    }
  }
  return [...texts.values()].join("");
}

describe("the conversation event stream over HTTP", () => {
  it("a client joining mid-turn and one reconnecting with Last-Event-ID both reconstruct exactly the final text", async () => {
    const auth = { authorization: `Bearer ${server.token}` };
    const created = await (
      await server.api("/api/conversations", { method: "POST", body: JSON.stringify({ text: "stream please [[delay:40]] [[stream:40]]" }) })
    ).json();
    const id = created.conversation.id;
    const eventsUrl = `${server.url}/api/conversations/${id}/events`;

    const late = await connectSse(eventsUrl, auth);
    await late.waitFor((event) => event.event === "item.delta");

    const interrupted = await connectSse(eventsUrl, auth);
    const seen = await interrupted.waitFor((event) => event.event === "item.delta");
    interrupted.close();
    const resumed = await connectSse(eventsUrl, { ...auth, "last-event-id": seen.id! });

    await late.waitFor((event) => event.event === "turn.ended", 20_000);
    await resumed.waitFor((event) => event.event === "turn.ended", 20_000);
    late.close();
    resumed.close();

    const items = await (await server.api(`/api/conversations/${id}/items`)).json();
    const finalText = items.items.find((item: { kind: string }) => item.kind === "assistant_message").text;
    expect(finalText).toBe(`You said: stream please ${Array.from({ length: 40 }, (_, index) => `w${index + 1}`).join(" ")}`);

    expect(late.events[0].event).toBe("snapshot");
    expect(assistantText(late.events.map((event) => parse(event.data)))).toBe(finalText);

    const beforeDrop = interrupted.events.slice(0, interrupted.events.indexOf(seen) + 1).map((event) => parse(event.data));
    expect(resumed.events[0].event).not.toBe("snapshot");
    const afterResume = resumed.events.map((event) => parse(event.data));
    expect(assistantText([...beforeDrop, ...afterResume])).toBe(finalText);
    const ids = [...interrupted.events.slice(0, interrupted.events.indexOf(seen) + 1), ...resumed.events].map((event) => Number(event.id));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("sends list-level changes on /api/events", async () => {
    const list = await connectSse(`${server.url}/api/events`, { authorization: `Bearer ${server.token}` });
    const created = await (await server.api("/api/conversations", { method: "POST", body: JSON.stringify({ text: "hello list" }) })).json();
    const event = await list.waitFor((candidate) => candidate.event === "conversation.created");
    expect(parse(event.data).conversationId).toBe(created.conversation.id);
    list.close();
  });
});
