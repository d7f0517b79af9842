/** How long a process group gets to exit after SIGTERM before SIGKILL. */
export const killGraceMs = 2000;

/**
 * Stops a whole process group, so children a command started in the
 * background die with it. The SIGKILL timer is unref'd so it never keeps the
 * server alive on its own.
 */
export function killProcessGroup(processGroupId: number, graceMs = killGraceMs): void {
  signalProcessGroup(processGroupId, "SIGTERM");
  const timer = setTimeout(() => {
    if (isProcessGroupAlive(processGroupId)) signalProcessGroup(processGroupId, "SIGKILL");
  }, graceMs);
  timer.unref();
}

function signalProcessGroup(processGroupId: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-processGroupId, signal);
  } catch (error) {
    if (!isNoSuchProcess(error)) throw error;
  }
}

function isProcessGroupAlive(processGroupId: number): boolean {
  try {
    process.kill(-processGroupId, 0);
    return true;
  } catch (error) {
    if (isNoSuchProcess(error)) return false;
    throw error;
  }
}

function isNoSuchProcess(error: unknown): boolean {
  return error instanceof Error && "code" in error && error.code === "ESRCH";
}
