import { BENCH_TOKEN, freePort, startBenchServer } from "../support/server-process";
import type { FakeModel } from "./handles";
import { parseStamps, benchPrompt } from "./stamps";
import { post, writeConfig } from "./round";

/**
 * The table's last line (issue 25): a turn streams, the server is killed with SIGKILL once a
 * client has read `AFTER_WORDS` words, a new server recovers the data directory, and the
 * words the assistant message kept are counted (DESIGN §2: progress is written every 2 s, so
 * a crash loses at most the last 2 s).
 */
export const AFTER_WORDS = 500;
const TURN_WORDS = 2000;
const READ_TIMEOUT_MS = 60_000;

/** Reads the conversation's SSE stream until `words` stamped words came in item.delta frames. */
async function readWords(url: string, conversationId: string, words: number): Promise<number> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`fewer than ${words} words within ${READ_TIMEOUT_MS} ms`)), READ_TIMEOUT_MS);
  try {
    const response = await fetch(`${url}/api/conversations/${conversationId}/events`, {
      headers: { authorization: `Bearer ${BENCH_TOKEN}`, accept: "text/event-stream" },
      signal: controller.signal,
    });
    const decoder = new TextDecoder();
    let text = "";
    let seen = 0;
    const reader = response.body!.getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      text += decoder.decode(next.value, { stream: true });
      let end: number;
      while ((end = text.indexOf("\n\n")) !== -1) {
        const frame = text.slice(0, end);
        text = text.slice(end + 2);
        if (!frame.includes("event: item.delta")) continue;
        const data = frame.split("\n").find((line) => line.startsWith("data: "));
        const event = JSON.parse(data!.slice(6)) as { field?: string; delta?: string };
        if (event.field === "text") seen += parseStamps(event.delta ?? "").length;
      }
      if (seen >= words) return seen;
    }
    throw new Error(`the stream ended after ${seen} words`);
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

export async function wordsKeptAfterKill(home: string, fake: FakeModel, nodeArgs: string[] = []): Promise<{ streamed: number; kept: number }> {
  writeConfig(home, fake.url);
  const first = await startBenchServer(home, await freePort(), { nodeArgs });
  let streamed: number;
  let conversationId: string;
  try {
    const created = await post<{ conversation: { id: string } }>(first, "/api/conversations", { text: benchPrompt("crash", TURN_WORDS) });
    conversationId = created.conversation.id;
    streamed = await readWords(first.url, conversationId, AFTER_WORDS);
  } finally {
    first.child.kill("SIGKILL");
    await first.stop();
  }
  const second = await startBenchServer(home, await freePort(), { nodeArgs });
  try {
    const answer = (await (await second.get(`/api/conversations/${conversationId}/items?limit=500`)).json()) as { items: Array<{ kind: string; text?: string }> };
    const kept = answer.items.filter((item) => item.kind === "assistant_message").reduce((sum, item) => sum + parseStamps(item.text ?? "").length, 0);
    return { streamed, kept };
  } finally {
    await second.stop();
  }
}
