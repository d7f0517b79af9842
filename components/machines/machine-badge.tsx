"use client";

import { ProjectLabel } from "@/components/chat/project-label";
import { cn } from "@/lib/utils";
import { useMachines } from "./use-machines";

/** The header's project and machine (DESIGN §9, §10b): the machine's online dot, the folder's name and the machine's. */
export function MachineBadge({ machineId, cwd }: { machineId: string; cwd: string }) {
  const { machines, loaded } = useMachines();
  const machine = machines.find((candidate) => candidate.id === machineId);
  const online = machine?.status === "online";
  const name = machine?.name ?? (machineId === "local" ? "local" : loaded ? "removed machine" : "…");
  const dot = (
    <span role="img" className="inline-flex" title={`${name}: ${online ? "online" : "offline"}`} aria-label={`Machine: ${name}, ${online ? "online" : "offline"}`}>
      <span data-machine-status={online ? "online" : "offline"} className={cn("inline-flex size-2 shrink-0 rounded-full", online ? "bg-success" : "bg-muted-foreground/40")} />
    </span>
  );
  return <ProjectLabel cwd={cwd} machine={name} status={dot} />;
}
