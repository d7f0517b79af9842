import fs from "node:fs";

/**
 * Another process's CPU time and memory, read from /proc (Linux): what the server spends
 * is measured from outside, so the figure's own work is never counted.
 */
const CLOCK_TICKS_PER_SECOND = 100;

/** utime + stime in ms (kernel clock ticks, 10 ms each). */
export function cpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  // The command name may hold spaces: fields are counted after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
}

function statusKiB(pid: number, field: "VmRSS" | "VmHWM"): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? Number.NaN);
}

export function rssBytes(pid: number): number {
  return statusKiB(pid, "VmRSS") * 1024;
}

/** The kernel's RSS high-water mark since the process started. */
export function peakRssBytes(pid: number): number {
  return statusKiB(pid, "VmHWM") * 1024;
}

/** Samples a process's RSS (or `read`, e.g. treeRssBytes) every `intervalMs` until stopped; answers the highest seen. */
export function sampleRss(pid: number, intervalMs = 10, read: (pid: number) => number = rssBytes): () => number {
  let peak = read(pid);
  const timer = setInterval(() => (peak = Math.max(peak, read(pid))), intervalMs);
  return () => {
    clearInterval(timer);
    return Math.max(peak, read(pid));
  };
}

/** `pid` and every process below it (children of children…), read from /proc. */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // The process ended while the tree was read.
    }
  }
  const tree: number[] = [];
  for (const queue = [pid]; queue.length > 0; ) {
    const next = queue.shift()!;
    tree.push(next);
    queue.push(...(children.get(next) ?? []));
  }
  return tree;
}

/** Sums `read` over a process tree, skipping processes that end while it is read. */
function sumOverTree(pid: number, read: (pid: number) => number): number {
  let total = 0;
  for (const member of processTree(pid)) {
    try {
      const value = read(member);
      // A zombie (ended, not yet reaped) has no VmRSS.
      if (Number.isFinite(value)) total += value;
    } catch {
      // Gone between listing and reading.
    }
  }
  return total;
}

/**
 * CPU ms of a whole process tree: each live process's own time plus the time of the children
 * it has already reaped (cutime + cstime), so helpers that come and go are counted too.
 */
export function treeCpuMs(pid: number): number {
  return sumOverTree(pid, (member) => {
    const stat = fs.readFileSync(`/proc/${member}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 1000) / CLOCK_TICKS_PER_SECOND;
  });
}

/** RSS summed over a process tree (pages shared between its processes count once per process). */
export function treeRssBytes(pid: number): number {
  return sumOverTree(pid, rssBytes);
}
