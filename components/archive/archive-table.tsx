"use client";

import { useRouter } from "next/navigation";
import { useCallback, useMemo, useState } from "react";
import { useTable, type RowSelectionState } from "@tanstack/react-table";
import { PageHeader } from "@/components/sidebar/page-header";
import { archiveColumns, archiveFeatures } from "./archive-columns";
import { ArchiveDataTable } from "./archive-data-table";
import { ArchiveDeleteDialog } from "./archive-delete-dialog";
import { ArchivePagination } from "./archive-pagination";
import type { ArchivePage } from "./archive-query";
import { ArchiveToolbar } from "./archive-toolbar";
import { useArchiveBulkActions } from "./use-archive-bulk-actions";
import { useArchivePage } from "./use-archive-page";

interface ArchiveTableProps {
  initialPage: ArchivePage;
  models: string[];
}

/** Archived conversations: server-side paging, sorting, model filter and search; bulk unarchive and delete. */
export function ArchiveTable({ initialPage, models }: ArchiveTableProps) {
  const router = useRouter();
  const archive = useArchivePage(initialPage);
  const { page, sorting, pagination } = archive;
  const [rowSelection, setRowSelection] = useState<RowSelectionState>({});
  const clearSelection = useCallback(() => setRowSelection({}), []);
  const actions = useArchiveBulkActions(archive.reload, clearSelection);
  const { unarchive } = actions;

  // The server's total has come back null (see the report); then paging falls back to "is this page full?".
  const total = typeof page.total === "number" && Number.isFinite(page.total) ? page.total : null;
  const columns = useMemo(() => archiveColumns({ onUnarchive: (conversation) => void unarchive([conversation.id]) }), [unarchive]);

  const table = useTable({
    features: archiveFeatures,
    columns,
    data: page.conversations,
    getRowId: (row) => row.id,
    state: { sorting, pagination, rowSelection },
    onSortingChange: archive.setSorting,
    onPaginationChange: archive.setPagination,
    onRowSelectionChange: setRowSelection,
    manualSorting: true,
    manualPagination: true,
    enableSortingRemoval: false,
    enableMultiSort: false,
    rowCount: total ?? undefined,
    pageCount: total === null ? -1 : undefined,
  });

  const selectedIds = Object.keys(rowSelection).filter((id) => rowSelection[id]);
  const emptyMessage =
    archive.loadError ?? (archive.query || archive.model ? "No archived conversation matches." : "Nothing is archived. Archive a conversation from its menu.");

  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <PageHeader title="Archive" />
      <div className="min-h-0 flex-1 overflow-y-auto">
        <div className="mx-auto grid w-full max-w-5xl gap-4 px-4 py-6 md:px-6">
          <ArchiveToolbar
            search={archive.search}
            onSearchChange={archive.setSearch}
            models={models}
            model={archive.model}
            onModelChange={archive.filterByModel}
            selectedIds={selectedIds}
            actions={actions}
            onClearSelection={clearSelection}
          />
          <ArchiveDataTable table={table} loading={archive.loading} emptyMessage={emptyMessage} onOpen={(conversation) => router.push(`/c/${conversation.id}`)} />
          <ArchivePagination page={page} total={total} pagination={pagination} onPaginationChange={archive.setPagination} />
        </div>
      </div>
      <ArchiveDeleteDialog
        selectedIds={selectedIds}
        protectedTitles={page.conversations.filter((conversation) => conversation.protected && rowSelection[conversation.id]).map((conversation) => conversation.title)}
        actions={actions}
      />
    </div>
  );
}
