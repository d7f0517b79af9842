"use client";

import { useEffect, useState } from "react";
import type { Project } from "@/lib/store/projects";
import { apiFetch } from "@/components/shared/api-client";

/** The folders the agent's conversations on this machine were held in, the last used first; read when the picker opens. */
export function useAgentProjects(open: boolean, machine: string, agent: string): string[] {
  const [paths, setPaths] = useState<string[]>([]);
  useEffect(() => {
    if (!open) return;
    let current = true;
    apiFetch<{ projects: Project[] }>(`/api/projects?machine=${encodeURIComponent(machine)}&agent=${encodeURIComponent(agent)}`).then(
      (body) => current && setPaths(body.projects.map((project) => project.path)),
      () => current && setPaths([]),
    );
    return () => {
      current = false;
    };
  }, [open, machine, agent]);
  return paths;
}
