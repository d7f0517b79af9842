"use client";

import { useCallback, useEffect, useState } from "react";
import type { Machine } from "@/lib/machines/machine-schema";
import { useLiveList } from "@/components/live/use-live";
import { apiFetch } from "@/components/shared/api-client";

/** The machines, live: loaded once the event stream is open, then patched by each `machine.updated` (DESIGN §10b). */
export function useMachines(initial: Machine[] = []): { machines: Machine[]; loaded: boolean; reload: () => void } {
  const [machines, setMachines] = useState<Machine[]>(initial);
  const [loaded, setLoaded] = useState(initial.length > 0);
  const reload = useCallback(() => {
    apiFetch<{ machines: Machine[] }>("/api/machines").then(
      (body) => {
        setMachines(body.machines);
        setLoaded(true);
      },
      () => undefined,
    );
  }, []);
  // Without a server-rendered list, load it now: the shared stream may already be open (no onOpen for this hook).
  const rendered = initial.length > 0;
  useEffect(() => {
    if (!rendered) reload();
  }, [reload, rendered]);
  useLiveList((event) => {
    if (event.type !== "machine.updated") return;
    const machine = event.machine;
    // A machine.updated for a machine no longer listed (revoked) is its last word: reload the list.
    setMachines((current) => (current.some((candidate) => candidate.id === machine.id) ? current.map((candidate) => (candidate.id === machine.id ? machine : candidate)) : [...current, machine]));
    reload();
  }, reload);
  return { machines, loaded, reload };
}
