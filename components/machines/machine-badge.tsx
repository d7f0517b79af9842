"use client";

import { ProjectLabel } from "@/components/chat/project-label";
import { MachineDot } from "./machine-dot";
import { useMachines } from "./use-machines";

/**
 * The header's project and machine (DESIGN §9, §10b): the machine's online dot, then the folder's name and the machine's.
 * Hidden on a phone, where the title needs the room: the conversation's menu opens with the project and the machine
 * with its online dot there, and an offline machine's banner shows on every width.
 */
export function MachineBadge({ machineId, cwd }: { machineId: string; cwd: string }) {
  const { machines, loaded } = useMachines();
  const machine = machines.find((candidate) => candidate.id === machineId);
  const online = machine?.status === "online";
  const name = machine?.name ?? (machineId === "local" ? "local" : loaded ? "removed machine" : "…");
  return (
    <span className="hidden min-w-0 shrink items-center gap-1.5 sm:inline-flex">
      <span role="img" className="inline-flex" title={`${name}: ${online ? "online" : "offline"}`} aria-label={`Machine: ${name}, ${online ? "online" : "offline"}`}>
        <MachineDot online={online} />
      </span>
      <ProjectLabel cwd={cwd} machine={name} />
    </span>
  );
}
