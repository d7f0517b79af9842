"use client";

import { Badge } from "@/components/ui/badge";
import { MachineDot } from "./machine-dot";
import { useMachines } from "./use-machines";

/** The header's project and machine (DESIGN §9, §10b): the folder's name and the machine with its online dot. */
export function MachineBadge({ machineId, cwd }: { machineId: string; cwd: string }) {
  const { machines, loaded } = useMachines();
  const machine = machines.find((candidate) => candidate.id === machineId);
  const online = machine?.status === "online";
  const name = machine?.name ?? (machineId === "local" ? "local" : loaded ? "removed machine" : "…");
  const folder = cwd.split("/").filter(Boolean).at(-1) ?? cwd;
  return (
    <Badge variant="outline" className="hidden shrink-0 gap-1.5 text-muted-foreground sm:inline-flex" title={`${cwd} on ${name}`} aria-label={`Machine: ${name}, ${online ? "online" : "offline"}`}>
      <MachineDot online={online} />
      {folder} · {name}
    </Badge>
  );
}
