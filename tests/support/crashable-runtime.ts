import { mkdirSync } from "node:fs";
import path from "node:path";
import { parseConfig, type AtriumConfig } from "@/lib/config/config";
import { Runtime } from "@/lib/engine/runtime";
import { Store } from "@/lib/store/store";
import { FreezableStorageFs } from "./freezable-fs";
import { FAST_RETRY } from "./runtime-harness";
import { makeTempHome } from "./temp-home";

/**
 * A real Runtime on real files in a temp ATRIUM_HOME that can also die: `crash()` freezes its
 * store's disk (nothing more is written, nothing in flight finishes, as after SIGKILL) and opens
 * a new Runtime on the same home, which runs crash recovery as a restarted server would.
 */
export interface CrashableRuntime {
  home: string;
  cwd: string;
  config: AtriumConfig;
  readonly runtime: Runtime;
  /** Runtimes started so far on this home (1 + restarts + crashes). */
  readonly generation: number;
  /** Kills the current Runtime without its clean shutdown and starts a new one. */
  crash(): Promise<Runtime>;
  /** Stops the current Runtime cleanly (stop()) and starts a new one. */
  restart(): Promise<Runtime>;
  close(): Promise<void>;
}

/**
 * `parent` is where the temp home goes (default: the OS temp dir). A process killed with SIGKILL
 * loses nothing the kernel already holds, flushed or not, so a memory filesystem models it as
 * well as a disk does, and faster.
 */
export async function startCrashableRuntime(configJson: Record<string, unknown> = {}, parent?: string): Promise<CrashableRuntime> {
  const temp = makeTempHome("atrium-model-", parent);
  const cwd = path.join(temp.home, "workspace");
  mkdirSync(cwd, { recursive: true });
  const config = parseConfig({ retry: FAST_RETRY, defaultCwd: cwd, ...configJson });
  const dead: Runtime[] = [];
  let disk = new FreezableStorageFs();
  let generation = 0;
  const make = async () => {
    disk = new FreezableStorageFs();
    const runtime = new Runtime({ store: new Store(temp.home, { log: () => {}, fs: disk }), config, log: () => {} });
    await runtime.start();
    generation += 1;
    return runtime;
  };
  let runtime = await make();
  return {
    home: temp.home,
    cwd,
    config,
    get runtime() {
      return runtime;
    },
    get generation() {
      return generation;
    },
    async crash() {
      disk.freeze();
      dead.push(runtime);
      runtime = await make();
      return runtime;
    },
    async restart() {
      await runtime.stop();
      runtime = await make();
      return runtime;
    },
    async close() {
      await runtime.stop();
      // A dead Runtime's index connection is closed only now: a killed process's would be gone,
      // but closing it while its frozen tasks might still read it would make them throw.
      for (const corpse of dead) corpse.store.index.$client.close();
      temp.cleanup();
    },
  };
}
