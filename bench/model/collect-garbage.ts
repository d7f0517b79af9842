import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * A full garbage collection of this process, now. The harness and the fake model run one before
 * each measured turn (peers harness, turns one at a time), so their own mark-sweeps, which took
 * 1.6–6.4 ms and were counted as the server's latency of the word they landed on, fall between
 * turns instead. The server under test is never collected this way. `--expose-gc` is turned on
 * at run time (the harness is started as `node --import tsx …`, without it).
 */
let gc: (() => void) | null = null;

export function collectGarbage(): void {
  if (!gc) {
    setFlagsFromString("--expose-gc");
    gc = runInNewContext("gc") as () => void;
  }
  gc();
}
