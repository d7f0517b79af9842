"use client";

import { FolderIcon } from "lucide-react";
import { folderName } from "@/components/shared/format";
import { DropdownMenuLabel, DropdownMenuSeparator } from "@/components/ui/dropdown-menu";
import { MachineDot } from "./machine-dot";
import { useMachines } from "./use-machines";

/**
 * The conversation's project at the top of its menu: the folder's name, its full path and the machine with its
 * online dot. The header shows it beside the title on wide screens; on a phone the menu is where it can be read.
 */
export function ProjectMenuLabel({ machineId, cwd }: { machineId: string; cwd: string }) {
  const { machines, loaded } = useMachines();
  const machine = machines.find((candidate) => candidate.id === machineId);
  const online = machine?.status === "online";
  const name = machine?.name ?? (machineId === "local" ? "local" : loaded ? "removed machine" : "…");
  return (
    <>
      <DropdownMenuLabel role="note" aria-label={`Project: ${folderName(cwd)} (${cwd}) on ${name}, ${online ? "online" : "offline"}`} className="grid gap-0.5 font-normal">
        <span className="flex min-w-0 items-center gap-1.5 text-sm font-medium">
          <FolderIcon className="size-3.5 shrink-0 text-muted-foreground" aria-hidden />
          <span className="truncate">{folderName(cwd)}</span>
          <span className="ml-auto flex shrink-0 items-center gap-1 text-xs font-normal text-muted-foreground">
            <MachineDot online={online} />
            {name}
          </span>
        </span>
        <span className="font-mono text-xs break-all text-muted-foreground">{cwd}</span>
      </DropdownMenuLabel>
      <DropdownMenuSeparator />
    </>
  );
}
