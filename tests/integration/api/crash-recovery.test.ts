import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { metadataRecordSchema, sessionRecordSchema } from "@/lib/store/records";
import { pollUntil } from "../../support/poll";
import { startServerProcess, type ServerProcess } from "../../support/server-process";
import { makeTempHome } from "../../support/temp-home";

const temp = makeTempHome();
let server: ServerProcess | null = null;

afterAll(async () => {
  await server?.stop();
  temp.cleanup();
});

describe("kill -9 mid-stream", () => {
  it("restarts with the turn interrupted, partial text kept, every line parsing, and new messages accepted", async () => {
    const first = await startServerProcess(temp.home);
    server = first;
    const created = await (
      await first.api("/api/conversations", { method: "POST", body: JSON.stringify({ text: "long one [[delay:100]] [[stream:100]]" }) })
    ).json();
    const id = created.conversation.id;
    const rootSession = created.conversation.rootSessionId;
    const sessionFile = path.join(temp.home, "conversations", id, `${rootSession}.jsonl`);
    // Wait until a progress checkpoint with some streamed words is on disk, then kill without warning.
    await pollUntil(() => fs.existsSync(sessionFile) && /"item.progress".*w\d/.test(fs.readFileSync(sessionFile, "utf8")), {
      what: "a progress checkpoint",
      timeoutMs: 15_000,
    });
    const textBeforeKill = await (await first.api(`/api/conversations/${id}/items`)).json();
    const liveText: string = textBeforeKill.items.find((item: { kind: string }) => item.kind === "assistant_message").text;
    await first.stop("SIGKILL");

    for (const file of fs.readdirSync(path.join(temp.home, "conversations", id)).filter((name) => name.endsWith(".jsonl"))) {
      const schema = file === "metadata.jsonl" ? metadataRecordSchema : sessionRecordSchema;
      const lines = fs.readFileSync(path.join(temp.home, "conversations", id, file), "utf8").split("\n").filter(Boolean);
      for (const line of lines) expect(schema.safeParse(JSON.parse(line)).success).toBe(true);
    }

    const second = await startServerProcess(temp.home);
    server = second;
    const turn = (await (await second.api(`/api/turns/${created.turn.id}`)).json()).turn;
    expect(turn.status).toBe("interrupted");
    expect(turn.error.code).toBe("server_stopped");
    const conversation = (await (await second.api(`/api/conversations/${id}`)).json()).conversation;
    expect(conversation.status).toBe("idle");

    const items = (await (await second.api(`/api/conversations/${id}/items`)).json()).items;
    const partial = items.find((item: { kind: string }) => item.kind === "assistant_message");
    expect(partial.status).toBe("interrupted");
    expect(partial.text.length).toBeGreaterThan("You said: long one".length);
    expect(liveText.startsWith(partial.text)).toBe(true);
    // At most 2 s of streaming is lost: at 100 ms a word that is at most ~20 words (+ slack for the kill).
    const lostWords = liveText.slice(partial.text.length).trim().split(/\s+/).filter(Boolean).length;
    expect(lostWords).toBeLessThanOrEqual(25);
    expect(items.at(-1).kind).toBe("notice");

    const sent = await second.api(`/api/conversations/${id}/messages`, { method: "POST", body: JSON.stringify({ text: "still there?" }) });
    expect(sent.status).toBe(202);
    const { turn: next } = await sent.json();
    await pollUntil(async () => (await (await second.api(`/api/turns/${next.id}`)).json()).turn.status === "completed", {
      what: "the next turn to complete",
    });
  });
});
