/** How long after the start the collection runs: off the path of the first requests (it takes ~80 ms of CPU on Node 24). */
export const START_QUIET_MS = 500;

type GarbageCollect = (options: { type: "major"; execution: "sync"; flavor: "last-resort" }) => void;

/**
 * Gives back what the start-up burst left behind (issue 25). Loading the server's modules grows
 * V8's young generation to its limit (npm start's --max-semi-space-size=8: about 7 MiB touched)
 * and it stays so until V8's memory reducer runs, which follows a later full collection by
 * seconds, if one comes (on Node 24 none came within 20 s of an idle start). One
 * memory-reducing collection right after the start returns it to the system at once: RSS of an
 * idle server on Node 24 went from about 90 to 81 MiB for about 80 ms of CPU. Node 20's V8
 * knows no `flavor` and makes it a plain full collection (a few ms, nothing returned).
 * For the process entries only (`atrium serve`, `node server.ts`), never a library caller.
 */
export function releaseStartMemory(): void {
  // Taken here, not imported: nothing else of a server's start needs them.
  const v8 = process.getBuiltinModule("node:v8");
  const vm = process.getBuiltinModule("node:vm");
  // The gc function exists only in contexts created while --expose-gc is on: one is made for it.
  v8.setFlagsFromString("--expose-gc");
  try {
    const collect = vm.runInNewContext("gc") as GarbageCollect;
    collect({ type: "major", execution: "sync", flavor: "last-resort" });
  } finally {
    v8.setFlagsFromString("--no-expose-gc");
  }
}
