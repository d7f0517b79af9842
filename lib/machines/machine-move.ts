import { AtriumError } from "../errors";
import type { MachinePort } from "../ports/machine-port";

interface MovePatch {
  cwd?: string;
  machine?: string;
}

/**
 * A PATCH that names a machine, or a cwd on a linked machine (DESIGN §10b): the target is
 * checked where it lives before the owner records anything. Moving needs an idle
 * conversation; the answer is the patch with the cwd as the machine resolved it.
 */
export async function checkMachinePatch<Patch extends MovePatch>(
  machines: MachinePort | undefined,
  current: { machine: string; cwd: string; status: string },
  patch: Patch,
): Promise<Patch> {
  if (!machines) return patch;
  const moving = patch.machine !== undefined && patch.machine !== current.machine;
  const target = patch.machine ?? current.machine;
  if (!moving && (patch.cwd === undefined || machines.isLocal(target))) return patch;
  if (moving && current.status !== "idle") {
    throw new AtriumError("not_idle", "a conversation moves to another machine only while nothing runs or waits in it");
  }
  const cwd = await machines.resolveCwd(target, patch.cwd ?? (moving ? undefined : current.cwd));
  return { ...patch, cwd };
}
