"use client";

import { ArrowUpIcon, ChevronRightIcon, FolderIcon, Loader2Icon } from "lucide-react";
import { useCallback, useEffect, useRef, useState } from "react";
import type { FolderListing } from "@/lib/machines/folder-listing";
import { Button } from "@/components/ui/button";
import { apiFetch, errorMessage } from "@/components/shared/api-client";

type Loaded = { listing: FolderListing; error: null } | { listing: FolderListing | null; error: string };

/** One folder of a machine at a time, read there (GET /api/folders). */
function useFolderListing(machine: string, start: string) {
  // Where browsing starts is read once: the field below changes as folders are opened.
  const [initial] = useState(start);
  const [state, setState] = useState<Loaded | null>(null);
  const [loading, setLoading] = useState(false);
  const open = useCallback(
    async (folder: string | null) => {
      setLoading(true);
      try {
        const query = folder ? `&path=${encodeURIComponent(folder)}` : "";
        const listing = await apiFetch<FolderListing>(`/api/folders?machine=${encodeURIComponent(machine)}${query}`);
        setState({ listing, error: null });
        return listing;
      } catch (error) {
        setState((current) => ({ listing: current?.listing ?? null, error: errorMessage(error) }));
        return null;
      } finally {
        setLoading(false);
      }
    },
    [machine],
  );
  useEffect(() => {
    void open(initial || null).then((listing) => (listing ? undefined : open(null)));
  }, [open, initial]);
  return { state, loading, open };
}

interface FolderBrowserProps {
  machine: string;
  machineName: string;
  start: string;
  /** A folder was opened: the picker's field shows (and checks) it. */
  onOpen: (path: string) => void;
  /** "Use this folder". */
  onUse: (path: string) => void;
}

/**
 * Browse the folders of the chosen machine: Enter (or a click) opens a folder, ← or Backspace
 * goes up, ↑/↓ move between folders, and "Use this folder" takes the one shown.
 */
export function FolderBrowser({ machine, machineName, start, onOpen, onUse }: FolderBrowserProps) {
  const { state, loading, open } = useFolderListing(machine, start);
  const list = useRef<HTMLUListElement>(null);
  const use = useRef<HTMLButtonElement>(null);
  const listing = state?.listing ?? null;
  const focusAfterLoad = useRef(false);

  // Focus follows the listing once it is on screen: the first folder in it, or "Use this folder" when it has none.
  useEffect(() => {
    if (!focusAfterLoad.current || loading) return;
    focusAfterLoad.current = false;
    (list.current?.querySelector<HTMLButtonElement>("button") ?? use.current)?.focus();
  }, [listing?.path, loading]);

  const go = async (folder: string) => {
    focusAfterLoad.current = true;
    const opened = await open(folder);
    if (opened) onOpen(opened.path);
  };

  const onKeyDown = (event: React.KeyboardEvent<HTMLUListElement>) => {
    const buttons = [...(list.current?.querySelectorAll<HTMLButtonElement>("button") ?? [])];
    const index = buttons.indexOf(document.activeElement as HTMLButtonElement);
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      buttons[Math.min(buttons.length - 1, Math.max(0, index + (event.key === "ArrowDown" ? 1 : -1)))]?.focus();
    } else if ((event.key === "ArrowLeft" || event.key === "Backspace") && listing?.parent) {
      event.preventDefault();
      void go(listing.parent);
    }
  };

  return (
    <div role="group" aria-label={`Folders on ${machineName}`} className="grid gap-2">
      <div className="flex items-center gap-1.5">
        <Button type="button" variant="ghost" size="icon-xs" aria-label="Up to the parent folder" disabled={!listing?.parent || loading} onClick={() => listing?.parent && void go(listing.parent)}>
          <ArrowUpIcon />
        </Button>
        <span className="min-w-0 flex-1 truncate font-mono text-xs" title={listing?.path} data-testid="browsed-folder">
          {listing?.path ?? "…"}
        </span>
        {loading && <Loader2Icon className="size-3.5 animate-spin text-muted-foreground" aria-label="Loading" />}
      </div>
      {state?.error && (
        <p role="alert" className="text-xs text-destructive">
          {state.error}
        </p>
      )}
      <ul ref={list} aria-label={listing ? `Folders in ${listing.path}` : "Folders"} onKeyDown={onKeyDown} className="grid max-h-48 gap-0.5 overflow-y-auto">
        {listing?.folders.map((folder) => (
          <li key={folder.path}>
            <button
              type="button"
              title={folder.path}
              onClick={() => void go(folder.path)}
              className="flex w-full items-center gap-2 rounded-md px-2 py-1 text-left outline-none hover:bg-accent focus-visible:bg-accent focus-visible:ring-[3px] focus-visible:ring-ring/50"
            >
              <FolderIcon className="size-3.5 shrink-0 text-muted-foreground" />
              <span className="min-w-0 flex-1 truncate">{folder.name}</span>
              <ChevronRightIcon className="size-3.5 shrink-0 text-muted-foreground" />
            </button>
          </li>
        ))}
        {listing && listing.folders.length === 0 && <li className="px-2 py-1 text-xs text-muted-foreground">No folders in here.</li>}
        {listing?.truncated && <li className="px-2 py-1 text-xs text-muted-foreground">More folders than shown; type a path below to reach one.</li>}
      </ul>
      <Button ref={use} type="button" size="sm" disabled={!listing || loading} onClick={() => listing && onUse(listing.path)}>
        Use this folder
      </Button>
    </div>
  );
}
