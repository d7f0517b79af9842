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

/** Samples a process's RSS every `intervalMs` until stopped; answers the highest seen. */
export function sampleRss(pid: number, intervalMs = 10): () => number {
  let peak = rssBytes(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssBytes(pid))), intervalMs);
  return () => {
    clearInterval(timer);
    return Math.max(peak, rssBytes(pid));
  };
}
