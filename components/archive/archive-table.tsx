"use client";

import { ArchiveIcon, ArchiveRestoreIcon, ChevronLeftIcon, ChevronRightIcon, Loader2Icon, SearchIcon, Trash2Icon, XIcon } from "lucide-react";
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { toast } from "sonner";
import { useTable, type PaginationState, type RowSelectionState, type SortingState } from "@tanstack/react-table";
import type { Conversation } from "@/lib/events/entities";
import {
  AlertDialog,
  AlertDialogAction,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogFooter,
  AlertDialogHeader,
  AlertDialogTitle,
} from "@/components/ui/alert-dialog";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { PageHeader } from "@/components/sidebar/page-header";
import { apiFetch, errorMessage } from "@/components/shared/api-client";
import { clearConversationDraft } from "@/components/shared/drafts";
import { useLiveList } from "@/components/live/use-live";
import { cn } from "@/lib/utils";
import { archiveColumns, archiveFeatures } from "./archive-columns";
import { ARCHIVE_PAGE_SIZE, archiveUrl, type ArchivePage, type ArchiveSort } from "./archive-query";

const LIST_EVENT_TYPES = ["conversation.created", "conversation.updated", "conversation.deleted"] as const;
const PAGE_SIZES = [10, 20, 50, 100];

interface ArchiveTableProps {
  initialPage: ArchivePage;
  models: string[];
}

/** Archived conversations: server-side paging, sorting, model filter and search; bulk unarchive and delete. */
export function ArchiveTable({ initialPage, models }: ArchiveTableProps) {
  const router = useRouter();
  const [page, setPage] = useState<ArchivePage>(initialPage);
  const [loading, setLoading] = useState(false);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [sorting, setSorting] = useState<SortingState>([{ id: "updated", desc: true }]);
  const [pagination, setPagination] = useState<PaginationState>({ pageIndex: 0, pageSize: ARCHIVE_PAGE_SIZE });
  const [rowSelection, setRowSelection] = useState<RowSelectionState>({});
  const [search, setSearch] = useState("");
  const [query, setQuery] = useState("");
  const [model, setModel] = useState<string | null>(null);
  const [reloadNonce, setReloadNonce] = useState(0);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [working, setWorking] = useState<"unarchive" | "delete" | null>(null);
  const firstLoad = useRef(true);

  useEffect(() => {
    const timer = window.setTimeout(() => {
      setQuery(search);
      setPagination((current) => (current.pageIndex === 0 ? current : { ...current, pageIndex: 0 }));
    }, 250);
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
    reloadTimer.current = window.setTimeout(reload, 200);
  }, reload);

  const unarchive = useCallback(
    async (ids: string[]) => {
      setWorking("unarchive");
      const failures: string[] = [];
      for (const id of ids) {
        try {
          await apiFetch(`/api/conversations/${id}`, { method: "PATCH", body: { archived: false } });
        } catch (error) {
          failures.push(errorMessage(error));
        }
      }
      setWorking(null);
      setRowSelection({});
      reload();
      const done = ids.length - failures.length;
      if (done > 0) toast.success(done === 1 ? "Unarchived 1 conversation" : `Unarchived ${done} conversations`);
      if (failures.length > 0) toast.error(`${failures.length} could not be unarchived: ${failures[0]}`);
    },
    [reload],
  );

  const remove = async (ids: string[]) => {
    setWorking("delete");
    const failures: string[] = [];
    for (const id of ids) {
      try {
        await apiFetch(`/api/conversations/${id}`, { method: "DELETE" });
        clearConversationDraft(id);
      } catch (error) {
        failures.push(errorMessage(error));
      }
    }
    setWorking(null);
    setConfirmDelete(false);
    setRowSelection({});
    reload();
    const done = ids.length - failures.length;
    if (done > 0) toast.success(done === 1 ? "Deleted 1 conversation" : `Deleted ${done} conversations`);
    if (failures.length > 0) toast.error(`${failures.length} could not be deleted: ${failures[0]}`);
  };

  // The server's total has come back null (see the report); then paging falls back to "is this page full?".
  const total = typeof page.total === "number" && Number.isFinite(page.total) ? page.total : null;
  const columns = useMemo(() => archiveColumns({ onUnarchive: (conversation) => void unarchive([conversation.id]) }), [unarchive]);

  const table = useTable({
    features: archiveFeatures,
    columns,
    data: page.conversations,
    getRowId: (row) => row.id,
    state: { sorting, pagination, rowSelection },
    onSortingChange: setSorting,
    onPaginationChange: setPagination,
    onRowSelectionChange: setRowSelection,
    manualSorting: true,
    manualPagination: true,
    enableSortingRemoval: false,
    enableMultiSort: false,
    rowCount: total ?? undefined,
    pageCount: total === null ? -1 : undefined,
  });

  const selectedIds = Object.keys(rowSelection).filter((id) => rowSelection[id]);
  const from = page.conversations.length === 0 ? 0 : pagination.pageIndex * pagination.pageSize + 1;
  const to = pagination.pageIndex * pagination.pageSize + page.conversations.length;
  const pageCount = total !== null ? Math.max(1, Math.ceil(total / pagination.pageSize)) : null;
  const hasNext = pageCount !== null ? pagination.pageIndex + 1 < pageCount : page.nextCursor != null || page.conversations.length === pagination.pageSize;

  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <PageHeader title="Archive" />
      <div className="min-h-0 flex-1 overflow-y-auto">
        <div className="mx-auto grid w-full max-w-5xl gap-4 px-4 py-6 md:px-6">
          <div className="flex flex-wrap items-center gap-2">
            <div className="relative min-w-48 flex-1">
              <SearchIcon className="pointer-events-none absolute top-1/2 left-2.5 size-4 -translate-y-1/2 text-muted-foreground" />
              <Input
                type="search"
                value={search}
                onChange={(event) => setSearch(event.target.value)}
                placeholder="Search titles and messages"
                aria-label="Search the archive"
                className="pl-8"
              />
            </div>
            <Select
              value={model ?? "all"}
              onValueChange={(value) => {
                setModel(value === "all" ? null : value);
                setPagination((current) => ({ ...current, pageIndex: 0 }));
              }}
            >
              <SelectTrigger aria-label="Filter by model" className="w-44">
                <SelectValue>{model ?? "All models"}</SelectValue>
              </SelectTrigger>
              <SelectContent>
                <SelectItem value="all">All models</SelectItem>
                {models.map((id) => (
                  <SelectItem key={id} value={id}>
                    {id}
                  </SelectItem>
                ))}
              </SelectContent>
            </Select>
          </div>

          {selectedIds.length > 0 && (
            <div role="toolbar" aria-label="Selected conversations" className="flex flex-wrap items-center gap-2 rounded-lg border bg-muted/50 px-3 py-2 text-sm">
              <span className="font-medium">{selectedIds.length} selected</span>
              <div className="ml-auto flex gap-2">
                <Button size="sm" variant="outline" disabled={working !== null} onClick={() => void unarchive(selectedIds)}>
                  {working === "unarchive" ? <Loader2Icon className="animate-spin" /> : <ArchiveRestoreIcon />}
                  Unarchive
                </Button>
                <Button size="sm" variant="destructive" disabled={working !== null} onClick={() => setConfirmDelete(true)}>
                  <Trash2Icon />
                  Delete
                </Button>
                <Button size="icon-sm" variant="ghost" aria-label="Clear selection" onClick={() => setRowSelection({})}>
                  <XIcon />
                </Button>
              </div>
            </div>
          )}

          <div className={cn("overflow-hidden rounded-xl border bg-card transition-opacity", loading && "opacity-60")} aria-busy={loading}>
            <Table aria-label="Archived conversations">
              <TableHeader className="bg-muted/40">
                {table.getHeaderGroups().map((group) => (
                  <TableRow key={group.id} className="hover:bg-transparent">
                    {group.headers.map((header) => (
                      <TableHead
                        key={header.id}
                        className={cn(
                          header.column.id === "select" && "w-10 pl-4",
                          header.column.id === "actions" && "w-12",
                          (header.column.id === "model" || header.column.id === "created") && "hidden md:table-cell",
                        )}
                        aria-sort={
                          header.column.getCanSort() && header.column.getIsSorted()
                            ? header.column.getIsSorted() === "asc"
                              ? "ascending"
                              : "descending"
                            : undefined
                        }
                      >
                        {header.isPlaceholder ? null : <table.FlexRender header={header} />}
                      </TableHead>
                    ))}
                  </TableRow>
                ))}
              </TableHeader>
              <TableBody>
                {table.getRowModel().rows.length === 0 ? (
                  <TableRow className="hover:bg-transparent">
                    <TableCell colSpan={columns.length} className="h-40 text-center whitespace-normal text-muted-foreground">
                      <div className="flex flex-col items-center gap-2">
                        <ArchiveIcon className="size-6" />
                        {loadError ?? (query || model ? "No archived conversation matches." : "Nothing is archived. Archive a conversation from its menu.")}
                      </div>
                    </TableCell>
                  </TableRow>
                ) : (
                  table.getRowModel().rows.map((row) => (
                    <TableRow
                      key={row.id}
                      data-state={row.getIsSelected() ? "selected" : undefined}
                      className="cursor-pointer"
                      onClick={(event) => {
                        if ((event.target as HTMLElement).closest("button, a, [role=checkbox]")) return;
                        router.push(`/c/${row.original.id}`);
                      }}
                    >
                      {row.getAllCells().map((cell) => (
                        <TableCell
                          key={cell.id}
                          className={cn(
                            cell.column.id === "select" && "pl-4",
                            cell.column.id === "title" && "max-w-0 w-full",
                            (cell.column.id === "model" || cell.column.id === "created") && "hidden md:table-cell",
                          )}
                        >
                          <table.FlexRender cell={cell} />
                        </TableCell>
                      ))}
                    </TableRow>
                  ))
                )}
              </TableBody>
            </Table>
          </div>

          <div className="flex flex-wrap items-center justify-between gap-3 text-sm text-muted-foreground">
            <span aria-live="polite">
              {page.conversations.length === 0 ? "0 conversations" : total !== null ? `${from}–${to} of ${total}` : `${from}–${to}`}
            </span>
            <div className="flex items-center gap-2">
              <Select
                value={String(pagination.pageSize)}
                onValueChange={(value) => setPagination({ pageIndex: 0, pageSize: Number(value) })}
              >
                <SelectTrigger size="sm" aria-label="Rows per page" className="w-[8.75rem]">
                  <SelectValue>{pagination.pageSize} per page</SelectValue>
                </SelectTrigger>
                <SelectContent>
                  {PAGE_SIZES.map((size) => (
                    <SelectItem key={size} value={String(size)}>
                      {size} per page
                    </SelectItem>
                  ))}
                </SelectContent>
              </Select>
              <span className="tabular-nums">
                Page {pagination.pageIndex + 1}
                {pageCount !== null ? ` of ${pageCount}` : ""}
              </span>
              <Button size="icon-sm" variant="outline" aria-label="Previous page" disabled={pagination.pageIndex === 0}
                onClick={() => setPagination((current) => ({ ...current, pageIndex: Math.max(0, current.pageIndex - 1) }))}>
                <ChevronLeftIcon />
              </Button>
              <Button size="icon-sm" variant="outline" aria-label="Next page" disabled={!hasNext} onClick={() => setPagination((current) => ({ ...current, pageIndex: current.pageIndex + 1 }))}>
                <ChevronRightIcon />
              </Button>
            </div>
          </div>
        </div>
      </div>

      <AlertDialog open={confirmDelete} onOpenChange={setConfirmDelete}>
        <AlertDialogContent>
          <AlertDialogHeader>
            <AlertDialogTitle>
              Delete {selectedIds.length === 1 ? "1 conversation" : `${selectedIds.length} conversations`}?
            </AlertDialogTitle>
            <AlertDialogDescription>
              Their files are removed from this machine. Protected conversations are skipped and say why. This cannot be undone.
            </AlertDialogDescription>
          </AlertDialogHeader>
          <AlertDialogFooter>
            <AlertDialogCancel disabled={working !== null}>Cancel</AlertDialogCancel>
            <AlertDialogAction
              className="bg-destructive text-white hover:bg-destructive/90"
              disabled={working !== null}
              onClick={(event) => {
                event.preventDefault();
                void remove(selectedIds);
              }}
            >
              {working === "delete" ? "Deleting…" : "Delete"}
            </AlertDialogAction>
          </AlertDialogFooter>
        </AlertDialogContent>
      </AlertDialog>
    </div>
  );
}
