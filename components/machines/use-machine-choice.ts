"use client";

import { useEffect, useState } from "react";
import type { Machine } from "@/lib/machines/machine-schema";
import { useMachines } from "./use-machines";

export const LAST_MACHINE_KEY = "atrium.newChat.machine";

/**
 * The new chat's machine: the last one chosen while it is online, else `local`, else the first online machine
 * (with `machines.local: false` there may be no `local`), else the first listed.
 */
export function useMachineChoice(initial: Machine[] | undefined, defaultCwd: string) {
  const { machines } = useMachines(initial ?? []);
  const [chosen, setChosen] = useState<string | null>(null);
  // After hydration: the server renders without the browser's memory.
  useEffect(() => setChosen(window.localStorage.getItem(LAST_MACHINE_KEY)), []);
  const online = machines.filter((candidate) => candidate.status === "online");
  const fallback = (online.find((candidate) => candidate.id === "local") ?? online[0] ?? machines[0])?.id ?? "local";
  const machine = chosen && online.some((candidate) => candidate.id === chosen) ? chosen : fallback;
  const current = machines.find((candidate) => candidate.id === machine);
  // A linked machine's default folder is its first root; the server's own host keeps defaultCwd.
  const machineCwd = current && !current.builtin ? (current.roots[0] ?? "") : defaultCwd;
  const setMachine = (next: string) => {
    setChosen(next);
    window.localStorage.setItem(LAST_MACHINE_KEY, next);
  };
  return { machines, machine, setMachine, machineCwd };
}
