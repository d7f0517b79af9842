import http from "node:http";

/**
 * One HTTP call from a bench harness, on node:http with a keep-alive agent (as a browser keeps
 * its connections), answered with the status and the whole body as text. The harnesses used
 * undici's fetch before: 20 POSTs sent at once took it 3.3–6.7 ms (p50) to deliver to a trivial
 * server on this machine, node:http 1.7–2.9 ms, and that time was counted in submit → model
 * request of whichever system was measured.
 */
const agent = new http.Agent({ keepAlive: true });

export interface CallAnswer {
  status: number;
  ok: boolean;
  text: string;
}

export function httpCall(url: string, method: string, headers: Record<string, string>, body?: string): Promise<CallAnswer> {
  return new Promise((resolve, reject) => {
    const sent = body === undefined ? headers : { ...headers, "content-length": String(Buffer.byteLength(body)) };
    const request = http.request(url, { method, headers: sent, agent }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      response.once("error", reject);
      response.once("end", () => {
        const status = response.statusCode ?? 0;
        resolve({ status, ok: status >= 200 && status < 300, text });
      });
    });
    request.once("error", reject);
    request.end(body);
  });
}
