import http from "node:http";

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * One HTTP request with the path sent exactly as given (`curl --path-as-is`): fetch and URL
 * would resolve `..` and decode escapes before sending, which is the very thing under test.
 */
export function rawRequest(
  baseUrl: string,
  rawPath: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const request = http.request({ host: hostname, port, method: options.method ?? "GET", path: rawPath, headers: options.headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString("utf8") }));
      response.on("error", reject);
    });
    request.on("error", reject);
    request.end(options.body);
  });
}

const CHUNK = Buffer.alloc(64 * 1024, " ");

/**
 * POSTs a chunked body (no Content-Length) of up to `totalBytes`, one 64 KiB chunk per turn of
 * the event loop, as fast as the server takes it, and stops at the server's answer: its status and
 * body, and how much was sent before it came. Without an agent, so the request asks to close.
 */
export function sendChunked(baseUrl: string, pathname: string, totalBytes: number, headers: Record<string, string>): Promise<{ status: number; body: string; sent: number }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const request = http.request({ host: hostname, port, method: "POST", path: pathname, headers: { ...headers, "transfer-encoding": "chunked" }, agent: false });
    request.on("response", (response) => {
      answered = true;
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        request.destroy();
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8"), sent });
      });
    });
    request.on("error", (error) => {
      if (!answered) reject(error);
    });
    // One chunk per turn of the event loop: the server's early answer is read between writes.
    const pump = () => {
      if (answered) return;
      if (sent >= totalBytes) return void request.end();
      sent += CHUNK.length;
      if (!request.write(CHUNK)) return void request.once("drain", () => setImmediate(pump));
      setImmediate(pump);
    };
    pump();
  });
}
