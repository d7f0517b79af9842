import fs from "node:fs";

export interface ProcessState {
  pid: number;
  state: string;
  processGroup: number;
}

/**
 * /proc/<pid>/stat of one process, or null when it is gone. A killed grandchild reparented
 * to a PID 1 that never reaps stays a zombie ("Z"): dead, though `kill(pid, 0)` still succeeds.
 */
export function processState(pid: number): ProcessState | null {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  // The command name is in parentheses and may itself hold spaces or parentheses.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { pid, state: fields[0], processGroup: Number(fields[2]) };
}

/** Processes of the group that are still running (zombies excluded). */
export function liveProcessesInGroup(processGroup: number): ProcessState[] {
  const live: ProcessState[] = [];
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const state = processState(Number(name));
    if (state && state.processGroup === processGroup && state.state !== "Z" && state.state !== "X") live.push(state);
  }
  return live;
}

export function isAlive(pid: number): boolean {
  const state = processState(pid);
  return state !== null && state.state !== "Z" && state.state !== "X";
}
