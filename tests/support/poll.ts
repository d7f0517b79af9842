import { setTimeout as delay } from "node:timers/promises";

/** Polls `check` until it returns a value (not undefined/false) or the deadline passes. */
export async function pollUntil<T>(check: () => Promise<T | undefined | false> | T | undefined | false, options: { timeoutMs?: number; what?: string } = {}): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value as T;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${options.what ?? "a condition"}`);
    await delay(20);
  }
}
