import { promises as fs, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ToolContext } from "@/lib/tools/tool";

export async function createTemporaryDirectory(): Promise<string> {
  return fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "atrium-tools-")));
}

export async function removeTemporaryDirectory(directory: string): Promise<void> {
  await fs.rm(directory, { recursive: true, force: true });
}

/** Collects streamed output and lets a test wait for a piece of it without sleeping. */
export class OutputRecorder {
  readonly deltas: string[] = [];
  private waiters: Array<{ text: string; resolve: () => void }> = [];

  get text(): string {
    return this.deltas.join("");
  }

  readonly onOutput = (delta: string): void => {
    this.deltas.push(delta);
    const text = this.text;
    this.waiters = this.waiters.filter((waiter) => {
      if (!text.includes(waiter.text)) return true;
      waiter.resolve();
      return false;
    });
  };

  waitFor(text: string): Promise<void> {
    if (this.text.includes(text)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ text, resolve }));
  }
}

export function createToolContext(
  cwd: string,
  options: { signal?: AbortSignal; recorder?: OutputRecorder } = {},
): ToolContext {
  const recorder = options.recorder ?? new OutputRecorder();
  return { cwd, signal: options.signal ?? new AbortController().signal, onOutput: recorder.onOutput };
}

/**
 * A killed process whose parent died stays a zombie until init reaps it, and
 * kill(pid, 0) still finds zombies; on Linux /proc tells that it has exited.
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if (error instanceof Error && "code" in error && error.code === "ESRCH") return false;
    throw error;
  }
  return processState(pid) !== "Z";
}

function processState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name in parentheses may hold spaces; the state follows the last ")".
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
  } catch (error) {
    if (error instanceof Error && "code" in error && error.code === "ENOENT") return undefined;
    throw error;
  }
}
