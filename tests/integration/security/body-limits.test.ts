import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServerProcess, TEST_TOKEN, type ServerProcess } from "../../support/server-process";
import { makeTempHome } from "../../support/temp-home";

const MiB = 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, "x");

let server: ServerProcess;
let cleanup: () => void;
let home: string;

beforeAll(async () => {
  const temp = makeTempHome();
  cleanup = temp.cleanup;
  home = temp.home;
  fs.writeFileSync(path.join(temp.home, "config.json"), JSON.stringify({ webhooks: { github: { secret: "body-limit-secret" } } }));
  server = await startServerProcess(temp.home);
  // Health answers while Next is still loading; the memory baseline is taken once Next and the
  // webhook route are loaded, so it measures the body, not the app coming up.
  const warm = await fetch(`${server.url}/api/webhooks/github`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-github-event": "push", "x-hub-signature-256": `sha256=${"0".repeat(64)}` },
    body: "{}",
  });
  expect(warm.status).toBe(401);
}, 90_000);

afterAll(async () => {
  await server?.stop();
  cleanup?.();
});

function residentBytes(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(match![1]) * 1024;
}

/**
 * Sends up to `totalBytes` as a chunked body (no Content-Length), as fast as the server
 * takes it, and stops at the server's answer. Reports the answer and the server's peak
 * resident memory sampled while sending.
 */
function sendChunked(pathname: string, totalBytes: number, headers: Record<string, string>): Promise<{ status: number; body: string; sent: number; peakRss: number }> {
  const { hostname, port } = new URL(server.url);
  const pid = server.child.pid!;
  return new Promise((resolve, reject) => {
    let sent = 0;
    let peakRss = residentBytes(pid);
    let answered = false;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, residentBytes(pid))), 25);
    const request = http.request({ host: hostname, port, method: "POST", path: pathname, headers: { ...headers, "transfer-encoding": "chunked" }, agent: false });
    request.on("response", (response) => {
      answered = true;
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        clearInterval(sampler);
        peakRss = Math.max(peakRss, residentBytes(pid));
        request.destroy();
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8"), sent, peakRss });
      });
    });
    request.on("error", (error) => {
      if (answered) return;
      clearInterval(sampler);
      reject(error);
    });
    // One chunk per turn of the event loop: the server's early answer is read between writes,
    // before a write after its close could fail with EPIPE.
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

describe("bodies are cut at their limit while they are read", () => {
  it("a chunked 100 MB webhook is refused with 413 while the server's memory grows by less than 20 MB", async () => {
    const before = residentBytes(server.child.pid!);
    const answer = await sendChunked("/api/webhooks/github", 100 * MiB, {
      "content-type": "application/json",
      "x-github-event": "push",
      "x-hub-signature-256": `sha256=${"0".repeat(64)}`,
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).error.code).toBe("payload_too_large");
    expect(answer.sent).toBeLessThan(100 * MiB);
    expect(answer.peakRss - before).toBeLessThan(20 * MiB);
  });

  it("a chunked JSON body past 1 MiB is 413 and creates nothing", async () => {
    const answer = await sendChunked("/api/conversations", 100 * MiB, { authorization: `Bearer ${TEST_TOKEN}`, "content-type": "application/json" });
    expect(answer.status).toBe(413);
    const list = (await (await server.api("/api/conversations?archived=all")).json()) as { conversations: unknown[] };
    expect(list.conversations).toEqual([]);
  });

  it("the 413 reaches every client still sending on a connection it asked to close (60 refused bodies, 3 at a time)", async () => {
    // Node's client without an agent sends `Connection: close`: the server closes after the
    // answer, and a close while the body still arrives reset the connection before the client
    // had read the 413 (EPIPE) — a few in a hundred before the close lingered.
    const statuses: number[] = [];
    for (let round = 0; round < 20; round++) {
      const answers = await Promise.all(
        [0, 1, 2].map(() => sendChunked("/api/conversations", 100 * MiB, { authorization: `Bearer ${TEST_TOKEN}`, "content-type": "application/json" })),
      );
      statuses.push(...answers.map((answer) => answer.status));
    }
    expect(statuses).toEqual(Array(60).fill(413));
  }, 120_000);

  it("a chunked upload past 20 MiB is 413 and leaves no upload behind", async () => {
    const answer = await sendChunked("/api/attachments", 100 * MiB, { authorization: `Bearer ${TEST_TOKEN}`, "content-type": "multipart/form-data; boundary=x" });
    expect(answer.status).toBe(413);
    const uploads = path.join(home, "uploads");
    expect(fs.existsSync(uploads) ? fs.readdirSync(uploads) : []).toEqual([]);
  });
});
