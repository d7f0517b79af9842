"use client";

import { useEffect, useState } from "react";
import { apiFetch } from "@/components/shared/api-client";

export interface ChangedFile {
  path: string;
  status: "added" | "modified" | "deleted";
  additions: number;
  deletions: number;
}

export interface TurnChanges {
  files: ChangedFile[];
  diff: string;
  items?: Array<{ itemId: string; paths: string[] }>;
}

/** An ended turn's changes do not change: one request per turn (or tool call) per page. */
const cache = new Map<string, Promise<TurnChanges>>();

function load(url: string): Promise<TurnChanges> {
  let pending = cache.get(url);
  if (!pending) {
    pending = apiFetch<TurnChanges>(url);
    // A failed request is not remembered, so the next render may try again.
    pending.catch(() => cache.delete(url));
    cache.set(url, pending);
  }
  return pending;
}

/** The changes of a turn (or of one tool call in it) once `ready` (the turn or call has ended). */
export function useTurnChanges(turnId: string | null, ready: boolean, itemId?: string): TurnChanges | null {
  const [changes, setChanges] = useState<TurnChanges | null>(null);
  const url = turnId ? `/api/turns/${turnId}/changes${itemId ? `?item=${itemId}` : ""}` : null;
  useEffect(() => {
    if (!url || !ready) return;
    let current = true;
    load(url).then(
      (body) => current && setChanges(body),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [url, ready]);
  return changes;
}

export function totals(files: readonly ChangedFile[]): { additions: number; deletions: number } {
  return files.reduce((sum, file) => ({ additions: sum.additions + file.additions, deletions: sum.deletions + file.deletions }), { additions: 0, deletions: 0 });
}
