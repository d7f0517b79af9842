import crypto from "node:crypto";
import fs from "node:fs";

/** The shortest `ATRIUM_TOKEN` accepted (DESIGN §10); a generated token is 32 characters. */
export const MIN_TOKEN_LENGTH = 32;

/** Refuses a guessable `ATRIUM_TOKEN` before anything starts: the message says what to do. */
export function assertTokenStrength(env: Record<string, string | undefined> = process.env): void {
  const token = env.ATRIUM_TOKEN;
  if (token && token.length < MIN_TOKEN_LENGTH) {
    throw new Error(
      `ATRIUM_TOKEN is ${token.length} characters long; it must be at least ${MIN_TOKEN_LENGTH} (for instance: openssl rand -base64 32). Atrium did not start.`,
    );
  }
}

/**
 * The access token (DESIGN §10): ATRIUM_TOKEN wins and nothing is written; otherwise the
 * token file (mode 0600) is read, or created at first start.
 */
export function loadOrCreateToken(tokenPath: string, env: Record<string, string | undefined> = process.env): string {
  assertTokenStrength(env);
  if (env.ATRIUM_TOKEN) return env.ATRIUM_TOKEN;
  try {
    const stored = fs.readFileSync(tokenPath, "utf8").trim();
    if (stored) return stored;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const token = crypto.randomBytes(24).toString("base64url");
  fs.writeFileSync(tokenPath, `${token}\n`, { mode: 0o600, flag: "w" });
  fs.chmodSync(tokenPath, 0o600);
  return token;
}

export function readToken(tokenPath: string, env: Record<string, string | undefined> = process.env): string | null {
  if (env.ATRIUM_TOKEN) return env.ATRIUM_TOKEN;
  try {
    return fs.readFileSync(tokenPath, "utf8").trim() || null;
  } catch {
    return null;
  }
}

/** The expected token's digest, made once: every authenticated request compares against it. */
let expectedDigest: { token: string; digest: Buffer } | null = null;

/** Constant-time comparison so a wrong token leaks nothing through timing. */
export function tokensMatch(expected: string, given: string | null | undefined): boolean {
  if (!given) return false;
  if (expectedDigest?.token !== expected) expectedDigest = { token: expected, digest: crypto.hash("sha256", expected, "buffer") };
  return crypto.timingSafeEqual(expectedDigest.digest, crypto.hash("sha256", given, "buffer"));
}

export const SESSION_COOKIE = "atrium_session";
