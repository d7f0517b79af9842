"use client";

import { ProjectLabel } from "@/components/chat/project-label";
import { MachineDot } from "./machine-dot";
import { useMachines } from "./use-machines";

/**
 * The header's project and machine (DESIGN §9, §10b): the machine's online dot, then the folder's name and the machine's.
 * On a phone only the dot shows (the title needs the room); its label still names the machine and its state.
 */
export function MachineBadge({ machineId, cwd }: { machineId: string; cwd: string }) {
  const { machines, loaded } = useMachines();
  const machine = machines.find((candidate) => candidate.id === machineId);
  const online = machine?.status === "online";
  const name = machine?.name ?? (machineId === "local" ? "local" : loaded ? "removed machine" : "…");
  return (
    <span className="inline-flex min-w-0 shrink-0 items-center gap-1.5 md:shrink">
      <span role="img" className="inline-flex" title={`${name}: ${online ? "online" : "offline"}`} aria-label={`Machine: ${name}, ${online ? "online" : "offline"}`}>
        <MachineDot online={online} />
      </span>
      <ProjectLabel cwd={cwd} machine={name} />
    </span>
  );
}
