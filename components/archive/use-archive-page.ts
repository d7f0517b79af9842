"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import type { PaginationState, SortingState } from "@tanstack/react-table";
import { apiFetch, errorMessage } from "@/components/shared/api-client";
import { useLiveList } from "@/components/live/use-live";
import { ARCHIVE_PAGE_SIZE, archiveUrl, type ArchivePage, type ArchiveSort } from "./archive-query";

const LIST_EVENT_TYPES = ["conversation.created", "conversation.updated", "conversation.deleted"] as const;
const SEARCH_PAUSE_MS = 250;
const LIVE_RELOAD_PAUSE_MS = 200;

/**
 * The archive's current page, fetched from the server whenever the paging, sort, model filter
 * or search (after a pause in typing) changes, and again when the list changes elsewhere.
 */
export function useArchivePage(initialPage: ArchivePage) {
  const [page, setPage] = useState<ArchivePage>(initialPage);
  const [loading, setLoading] = useState(false);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [sorting, setSorting] = useRememberedSort();
  const [pagination, setPagination] = useState<PaginationState>({ pageIndex: 0, pageSize: ARCHIVE_PAGE_SIZE });
  const [search, setSearch] = useState("");
  const [query, setQuery] = useState("");
  const [model, setModel] = useState<string | null>(null);
  const [reloadNonce, setReloadNonce] = useState(0);
  const firstLoad = useRef(true);

  useEffect(() => {
    const timer = window.setTimeout(() => {
      setQuery(search);
      setPagination((current) => (current.pageIndex === 0 ? current : { ...current, pageIndex: 0 }));
    }, SEARCH_PAUSE_MS);
    return () => window.clearTimeout(timer);
  }, [search]);

  const sort = (sorting[0]?.id ?? "updated") as ArchiveSort;
  const desc = sorting[0]?.desc ?? true;

  useEffect(() => {
    if (firstLoad.current) {
      firstLoad.current = false;
      return;
    }
    const controller = new AbortController();
    setLoading(true);
    apiFetch<ArchivePage>(archiveUrl({ pageIndex: pagination.pageIndex, pageSize: pagination.pageSize, sort, desc, q: query, model }), {
      signal: controller.signal,
    }).then(
      (body) => {
        setPage({ conversations: body.conversations, total: body.total, nextCursor: body.nextCursor });
        setLoadError(null);
        setLoading(false);
        // A page past the end (after deleting its last rows) steps back.
        if (body.conversations.length === 0 && pagination.pageIndex > 0) setPagination((current) => ({ ...current, pageIndex: current.pageIndex - 1 }));
      },
      (error) => {
        if (controller.signal.aborted) return;
        setLoadError(errorMessage(error));
        setLoading(false);
      },
    );
    return () => controller.abort();
  }, [pagination.pageIndex, pagination.pageSize, sort, desc, query, model, reloadNonce]);

  const reload = useCallback(() => setReloadNonce((nonce) => nonce + 1), []);
  const reloadTimer = useRef<number | null>(null);
  useLiveList((event) => {
    if (!(LIST_EVENT_TYPES as readonly string[]).includes(event.type)) return;
    if (reloadTimer.current !== null) window.clearTimeout(reloadTimer.current);
    reloadTimer.current = window.setTimeout(reload, LIVE_RELOAD_PAUSE_MS);
  }, reload);

  const filterByModel = (value: string | null) => {
    setModel(value);
    setPagination((current) => ({ ...current, pageIndex: 0 }));
  };

  return { page, loading, loadError, sorting, setSorting, pagination, setPagination, search, setSearch, query, model, filterByModel, reload };
}

const SORT_STORAGE_KEY = "atrium:archive-sort";
const SORTABLE = new Set(["title", "model", "created", "updated"]);

/** The archive's sort, kept in this browser so coming back to the archive finds it sorted as it was left. */
function useRememberedSort() {
  const [sorting, setSorting] = useState<SortingState>([{ id: "updated", desc: true }]);
  const restored = useRef(false);
  useEffect(() => {
    if (!restored.current) {
      restored.current = true;
      const [id, direction] = (window.localStorage.getItem(SORT_STORAGE_KEY) ?? "").split(":");
      if (SORTABLE.has(id) && (id !== "updated" || direction !== "desc")) setSorting([{ id, desc: direction === "desc" }]);
      return;
    }
    const current = sorting[0];
    if (current) window.localStorage.setItem(SORT_STORAGE_KEY, `${current.id}:${current.desc ? "desc" : "asc"}`);
  }, [sorting]);
  return [sorting, setSorting] as const;
}

export type ArchivePageState = ReturnType<typeof useArchivePage>;
