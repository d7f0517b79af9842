import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { shellTool } from "@/lib/tools/shell";
import { runTool } from "@/lib/tools/tool";
import {
  OutputRecorder,
  createTemporaryDirectory,
  createToolContext,
  isProcessAlive,
  removeTemporaryDirectory,
} from "./tool-test-context";

const processGoneDeadline = { timeout: 5000, interval: 20 };

describe("shell", () => {
  let directory: string;
  const leftoverPids: number[] = [];

  beforeEach(async () => {
    directory = await createTemporaryDirectory();
  });

  afterEach(async () => {
    for (const pid of leftoverPids.splice(0)) {
      if (isProcessAlive(pid)) process.kill(pid, "SIGKILL");
    }
    await removeTemporaryDirectory(directory);
  });

  function firstLinePid(recorder: OutputRecorder): number {
    const pid = Number(recorder.text.split("\n")[0]);
    expect(Number.isInteger(pid) && pid > 0).toBe(true);
    leftoverPids.push(pid);
    return pid;
  }

  it("streams stdout and stderr in the order they were written", async () => {
    const recorder = new OutputRecorder();
    const result = await runTool(
      shellTool,
      { command: "echo one; echo two >&2; echo three" },
      createToolContext(directory, { recorder }),
    );

    expect(recorder.text).toBe("one\ntwo\nthree\n");
    expect(result).toEqual({ status: "completed", output: "one\ntwo\nthree\n", exitCode: 0 });
  });

  it("streams output while the command is still running", async () => {
    const recorder = new OutputRecorder();
    const running = runTool(
      shellTool,
      { command: "echo first; while [ ! -e go ]; do sleep 0.01; done; echo second", timeoutMs: 10_000 },
      createToolContext(directory, { recorder }),
    );

    await recorder.waitFor("first\n");
    expect(recorder.text).toBe("first\n");
    await fs.writeFile(path.join(directory, "go"), "");

    expect(await running).toEqual({ status: "completed", output: "first\nsecond\n", exitCode: 0 });
  });

  it("runs in the cwd with ATRIUM=1 and no stdin", async () => {
    const result = await runTool(
      shellTool,
      { command: "echo $ATRIUM; pwd; cat; test -t 1 || echo no-tty" },
      createToolContext(directory),
    );

    expect(result.output).toBe(`1\n${directory}\nno-tty\n`);
  });

  it("fails on a nonzero exit code and keeps the output", async () => {
    const result = await runTool(shellTool, { command: "echo oops >&2; exit 3" }, createToolContext(directory));

    expect(result).toEqual({ status: "failed", output: "oops\nexit code 3", exitCode: 3 });
  });

  it("keeps bash's own errors, which happen before the output is merged", async () => {
    const result = await runTool(shellTool, { command: "if then" }, createToolContext(directory));

    expect(result.status).toBe("failed");
    expect(result.output).toMatch(/syntax error/);
  });

  it("kills the whole process group on timeout", async () => {
    const recorder = new OutputRecorder();
    const result = await runTool(
      shellTool,
      { command: "sleep 30 & echo $!; sleep 30; wait", timeoutMs: 300 },
      createToolContext(directory, { recorder }),
    );

    expect(result.status).toBe("failed");
    expect(result.output.split("\n").at(-1)).toBe("timed out after 300 ms");
    const childPid = firstLinePid(recorder);
    await vi.waitFor(() => expect(isProcessAlive(childPid)).toBe(false), processGoneDeadline);
  });

  it("kills the whole process group on interrupt and returns promptly", async () => {
    const recorder = new OutputRecorder();
    const controller = new AbortController();
    const running = runTool(
      shellTool,
      { command: "sleep 30 & echo $!; wait" },
      createToolContext(directory, { recorder, signal: controller.signal }),
    );
    await recorder.waitFor("\n");
    const childPid = firstLinePid(recorder);
    expect(isProcessAlive(childPid)).toBe(true);

    const abortedAt = Date.now();
    controller.abort();
    const result = await running;

    expect(Date.now() - abortedAt).toBeLessThan(1500);
    expect(result.status).toBe("interrupted");
    expect(result.output).toBe(`${childPid}\ninterrupted`);
    await vi.waitFor(() => expect(isProcessAlive(childPid)).toBe(false), processGoneDeadline);
  });

  it("sends SIGKILL to a process group that ignores SIGTERM", async () => {
    const recorder = new OutputRecorder();
    const controller = new AbortController();
    const running = runTool(
      shellTool,
      { command: "trap '' TERM; sleep 30 & echo $!; wait" },
      createToolContext(directory, { recorder, signal: controller.signal }),
    );
    await recorder.waitFor("\n");
    const childPid = firstLinePid(recorder);

    controller.abort();
    const result = await running;

    expect(result.status).toBe("interrupted");
    expect(result.exitCode).toBeNull();
    await vi.waitFor(() => expect(isProcessAlive(childPid)).toBe(false), processGoneDeadline);
  });

  it("finishes when bash exits even if a background child keeps the output open", async () => {
    const recorder = new OutputRecorder();
    const result = await runTool(
      shellTool,
      { command: "sleep 30 & echo $!", timeoutMs: 10_000 },
      createToolContext(directory, { recorder }),
    );

    const childPid = firstLinePid(recorder);
    expect(result).toEqual({ status: "completed", output: `${childPid}\n`, exitCode: 0 });
  });

  it("fails and kills the command when the output listener throws", async () => {
    const recorder = new OutputRecorder();
    const context = {
      ...createToolContext(directory),
      onOutput: (delta: string) => {
        recorder.onOutput(delta);
        throw new Error("listener broke");
      },
    };

    const result = await runTool(shellTool, { command: "echo $$; sleep 30" }, context);

    expect(result).toEqual({ status: "failed", output: "shell failed: listener broke" });
    const bashPid = firstLinePid(recorder);
    await vi.waitFor(() => expect(isProcessAlive(bashPid)).toBe(false), processGoneDeadline);
  });

  it("does not start when already interrupted", async () => {
    const controller = new AbortController();
    controller.abort();
    const marker = path.join(directory, "ran");

    const result = await runTool(
      shellTool,
      { command: `touch ${marker}` },
      createToolContext(directory, { signal: controller.signal }),
    );

    expect(result.status).toBe("interrupted");
    await expect(fs.access(marker)).rejects.toThrow();
  });

  it("fails clearly when the working directory is missing", async () => {
    const missing = path.join(directory, "missing");
    const result = await runTool(shellTool, { command: "true" }, createToolContext(missing));

    expect(result.status).toBe("failed");
    expect(result.output).toContain(`shell failed: working directory ${missing} cannot be used`);
  });

  it("rejects a timeout above the maximum", async () => {
    const result = await runTool(
      shellTool,
      { command: "true", timeoutMs: 600_001 },
      createToolContext(directory),
    );

    expect(result.status).toBe("failed");
    expect(result.output).toMatch(/^Invalid input for shell: timeoutMs: /);
  });
});
