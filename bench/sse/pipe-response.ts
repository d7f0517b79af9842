import type http from "node:http";

function drained(outgoing: http.ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      outgoing.off("drain", done);
      outgoing.off("close", done);
      resolve();
    };
    outgoing.on("drain", done);
    outgoing.on("close", done);
  });
}

/** Writes a web Response into a node response chunk by chunk, waiting on drain, as Next's server does. */
export async function pipeResponse(response: Response, outgoing: http.ServerResponse): Promise<void> {
  outgoing.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) {
    outgoing.end();
    return;
  }
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || outgoing.destroyed) break;
      if (!outgoing.write(value)) await drained(outgoing);
    }
  } finally {
    await reader.cancel().catch(() => {});
    outgoing.end();
  }
}

/** A web Request for a node request, aborted when the client goes away. */
export function toWebRequest(incoming: http.IncomingMessage, outgoing: http.ServerResponse): Request {
  const aborted = new AbortController();
  outgoing.once("close", () => aborted.abort());
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) if (typeof value === "string") headers.set(name, value);
  return new Request(`http://127.0.0.1${incoming.url}`, { headers, signal: aborted.signal });
}
