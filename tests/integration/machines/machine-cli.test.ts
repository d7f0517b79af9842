import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { backoffMs, closedLink } from "@/lib/machines/machine-connect";

const BIN = path.resolve(import.meta.dirname, "..", "..", "..", "bin", "atrium.mjs");

function atrium(args: string[], env: Record<string, string> = {}): { status: number | null; output: string } {
  const environment: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: "/tmp", ...env };
  const result = spawnSync(process.execPath, [BIN, ...args], { env: environment as NodeJS.ProcessEnv, encoding: "utf8", timeout: 30_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe("atrium machine (DESIGN §11)", () => {
  it("takes the token from ATRIUM_MACHINE_TOKEN only: without it, bad usage (2)", () => {
    const result = atrium(["machine", "connect", "http://127.0.0.1:9"]);
    expect(result.status).toBe(2);
    expect(result.output).toContain("ATRIUM_MACHINE_TOKEN");
  });

  it("answers bad usage with 2: no verb, an unknown verb, a URL that is not http(s), a root that is not a directory, a bad name", () => {
    const token = { ATRIUM_MACHINE_TOKEN: "atrium_machine_x" };
    expect(atrium(["machine"], token).status).toBe(2);
    expect(atrium(["machine", "dance"], token).status).toBe(2);
    expect(atrium(["machine", "connect", "ftp://example.net"], token).output).toContain("http:// or https://");
    expect(atrium(["machine", "connect", "ftp://example.net"], token).status).toBe(2);
    expect(atrium(["machine", "connect", "http://127.0.0.1:9", "--root", "/no/such/dir"], token).status).toBe(2);
    expect(atrium(["machine", "connect", "http://127.0.0.1:9", "--name", "two words"], token).status).toBe(2);
  });

  it("backs off 1, 2, 4 … 30 s, each cut to a random half to whole", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 10].map((attempt) => backoffMs(attempt, () => 1))).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
    expect(backoffMs(0, () => 0)).toBe(500);
    expect(backoffMs(8, () => 0)).toBe(15000);
  });

  it("a welcomed link the gateway could not keep (1013) does not reset the backoff; any other close of a welcomed link does; a revoke stops", () => {
    expect(closedLink(1013, "the database refused to record its link; redial", true)).toMatchObject({ kind: "retry", linked: false });
    expect(closedLink(1001, "the gateway is stopping", true)).toMatchObject({ kind: "retry", linked: true });
    expect(closedLink(1006, "", false)).toEqual({ kind: "retry", reason: "the link closed (1006)", linked: false });
    expect(closedLink(4403, "revoked", true)).toMatchObject({ kind: "stop" });
  });
});
