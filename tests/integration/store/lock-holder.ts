import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";

const REPO_ROOT = path.resolve(import.meta.dirname, "../../..");
const SCRIPT = path.join(import.meta.dirname, "fixtures", "hold-lock.ts");

export interface LockHolder {
  pid: number;
  child: ChildProcess;
  /** Resolves once the process has exited and been reaped (a zombie would still look alive). */
  exited: Promise<void>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** A real second process holding `lockPath`; resolves once it says it holds the lock. */
export async function spawnLockHolder(lockPath: string, timeoutMs = 20_000): Promise<LockHolder> {
  const child = spawn(process.execPath, ["--import", "tsx", SCRIPT, lockPath], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the lock holder did not start within ${timeoutMs} ms: ${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(`locked ${child.pid}`)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the lock holder exited with ${code}: ${output}`));
    });
  });
  return {
    pid: child.pid!,
    child,
    exited,
    kill: async (signal = "SIGKILL") => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
