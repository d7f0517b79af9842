"use client";

import { MonitorIcon } from "lucide-react";
import type { Machine } from "@/lib/machines/machine-schema";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { MachineDot } from "./machine-dot";

const PILL = "h-8 max-w-[14rem] gap-1.5 rounded-full border-transparent bg-muted/60 px-3 text-xs shadow-none hover:bg-muted";

/** Where the new chat's machine work runs (DESIGN §10b): the built-in machine and the linked ones, offline ones disabled. */
export function MachinePicker({ machines, value, onChange }: { machines: Machine[]; value: string; onChange: (machineId: string) => void }) {
  const chosen = machines.find((machine) => machine.id === value);
  return (
    <Select value={value} onValueChange={onChange}>
      <SelectTrigger size="sm" aria-label="Machine" className={PILL}>
        <MonitorIcon className="size-3.5" />
        <SelectValue>{chosen?.name ?? value}</SelectValue>
      </SelectTrigger>
      {/* Within the screen on a phone: a long root is cut short (its full path on hover), not pushed off the edge. */}
      <SelectContent align="start" className="max-w-(--radix-select-content-available-width)">
        {machines.map((machine) => (
          <SelectItem key={machine.id} value={machine.id} disabled={machine.status !== "online"}>
            <span className="flex items-center gap-2">
              <MachineDot online={machine.status === "online"} />
              <span>{machine.name}</span>
              <span className="max-w-[min(24rem,calc(100vw-10rem))] truncate text-xs text-muted-foreground" title={machine.roots[0]}>
                {machine.status === "online" ? (machine.roots[0] ?? "") : "offline"}
              </span>
            </span>
          </SelectItem>
        ))}
      </SelectContent>
    </Select>
  );
}
