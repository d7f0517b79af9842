import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServerProcess, TEST_TOKEN, type ServerProcess } from "../../support/server-process";
import { makeTempHome } from "../../support/temp-home";
import { sendChunked } from "../../support/raw-http";

const MiB = 1024 * 1024;

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

/** `sendChunked` to the test server, with the server's peak resident memory sampled while sending. */
async function sendChunkedMeasured(pathname: string, totalBytes: number, headers: Record<string, string>): Promise<{ status: number; body: string; sent: number; peakRss: number }> {
  const pid = server.child.pid!;
  let peakRss = residentBytes(pid);
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, residentBytes(pid))), 25);
  try {
    const answer = await sendChunked(server.url, pathname, totalBytes, headers);
    return { ...answer, peakRss: Math.max(peakRss, residentBytes(pid)) };
  } finally {
    clearInterval(sampler);
  }
}

describe("bodies are cut at their limit while they are read", () => {
  it("a chunked 100 MB webhook is refused with 413 while the server's memory grows by less than 20 MB", async () => {
    const before = residentBytes(server.child.pid!);
    const answer = await sendChunkedMeasured("/api/webhooks/github", 100 * MiB, {
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
    const answer = await sendChunkedMeasured("/api/conversations", 100 * MiB, { authorization: `Bearer ${TEST_TOKEN}`, "content-type": "application/json" });
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
        [0, 1, 2].map(() => sendChunkedMeasured("/api/conversations", 100 * MiB, { authorization: `Bearer ${TEST_TOKEN}`, "content-type": "application/json" })),
      );
      statuses.push(...answers.map((answer) => answer.status));
    }
    expect(statuses).toEqual(Array(60).fill(413));
  }, 120_000);

  it("a chunked upload past 20 MiB is 413 and leaves no upload behind", async () => {
    const answer = await sendChunkedMeasured("/api/attachments", 100 * MiB, { authorization: `Bearer ${TEST_TOKEN}`, "content-type": "multipart/form-data; boundary=x" });
    expect(answer.status).toBe(413);
    const uploads = path.join(home, "uploads");
    expect(fs.existsSync(uploads) ? fs.readdirSync(uploads) : []).toEqual([]);
  });
});
