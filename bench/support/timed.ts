export interface Timing<T> {
  result: T;
  wallMs: number;
  /** This process's user + system CPU: steadier than wall time when the machine is shared. */
  cpuMs: number;
}

export function timed<T>(work: () => T): Timing<T> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = work();
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { result, wallMs, cpuMs: (used.user + used.system) / 1000 };
}
