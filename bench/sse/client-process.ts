import http from "node:http";
import { monotonicMs } from "../support/stats";

/**
 * The SSE clients, in their own process as a browser would be, so parsing does not share
 * the server's event loop. Driven over IPC by bench/sse/client.ts: connect N streams, say
 * when they are open, then report when each `item.delta` frame was parsed.
 */
export interface ConnectRequest {
  type: "connect";
  urls: string[];
  headers: Record<string, string>;
  /** Stop after this many deltas per stream; a `turn.ended` frame also ends a stream. */
  expected: number;
}

export interface Receipts {
  /** Per stream: the SSE id of each delta and the monotonic time it was parsed. */
  ids: Float64Array[];
  times: Float64Array[];
}

export type ClientMessage = { type: "ready" } | { type: "done"; receipts: Receipts } | { type: "failed"; message: string };

function send(message: ClientMessage): void {
  process.send!(message);
}

function openStream(
  url: string,
  headers: Record<string, string>,
  expected: number,
  onOpen: () => void,
  onDone: (ids: number[], times: number[]) => void,
  onError: (error: Error) => void,
): () => void {
  const ids: number[] = [];
  const times: number[] = [];
  let buffer = "";
  let finished = false;
  const request = http.get(url, { headers: { accept: "text/event-stream", ...headers } }, (response) => {
    if (response.statusCode !== 200) return onError(new Error(`${url}: HTTP ${response.statusCode}`));
    response.setEncoding("utf8");
    let opened = false;
    response.on("data", (chunk: string) => {
      if (!opened) {
        opened = true;
        onOpen();
      }
      buffer += chunk;
      let start = 0;
      for (let end = buffer.indexOf("\n\n"); end !== -1 && !finished; start = end + 2, end = buffer.indexOf("\n\n", start)) {
        let id = Number.NaN;
        let event = "";
        let data = "";
        for (const line of buffer.slice(start, end).split("\n")) {
          if (line.startsWith("id: ")) id = Number(line.slice(4));
          else if (line.startsWith("event: ")) event = line.slice(7);
          else if (line.startsWith("data: ")) data = line.slice(6);
        }
        if (event === "item.delta") {
          // Parsed as a browser client would before it can show the text.
          JSON.parse(data);
          ids.push(id);
          times.push(monotonicMs());
        }
        if (ids.length >= expected || event === "turn.ended") {
          finished = true;
          onDone(ids, times);
        }
      }
      buffer = buffer.slice(start);
    });
    response.on("error", (error) => {
      if (!finished) onError(error);
    });
  });
  request.on("error", (error) => {
    if (!finished) onError(error);
  });
  return () => request.destroy();
}

process.on("message", (message: ConnectRequest | { type: "exit" }) => {
  if (message.type === "exit") process.exit(0);
  const results: Array<{ ids: number[]; times: number[] } | null> = message.urls.map(() => null);
  let open = 0;
  let done = 0;
  const closers = message.urls.map((url, index) =>
    openStream(
      url,
      message.headers,
      message.expected,
      () => {
        if ((open += 1) === message.urls.length) send({ type: "ready" });
      },
      (ids, times) => {
        results[index] = { ids, times };
        if ((done += 1) < message.urls.length) return;
        for (const close of closers) close();
        send({
          type: "done",
          receipts: {
            ids: results.map((result) => Float64Array.from(result!.ids)),
            times: results.map((result) => Float64Array.from(result!.times)),
          },
        });
      },
      (error) => send({ type: "failed", message: error.message }),
    ),
  );
});
