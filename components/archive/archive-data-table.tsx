"use client";

import { ArchiveIcon } from "lucide-react";
import type { ReactTable } from "@tanstack/react-table";
import type { Conversation } from "@/lib/events/entities";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { cn } from "@/lib/utils";
import type { archiveFeatures } from "./archive-columns";

export type ArchiveReactTable = ReactTable<typeof archiveFeatures, Conversation>;

interface ArchiveDataTableProps {
  table: ArchiveReactTable;
  loading: boolean;
  /** Shown in the one row of an empty page: why it is empty. */
  emptyMessage: string;
  onOpen: (conversation: Conversation) => void;
}

const narrowHidden = (columnId: string) => (columnId === "model" || columnId === "created") && "hidden md:table-cell";

function ariaSort(sorted: false | "asc" | "desc", canSort: boolean) {
  if (!canSort || !sorted) return undefined;
  return sorted === "asc" ? "ascending" : "descending";
}

/** The archive's rows as a table; a click on a row (not on its controls) opens the conversation. */
export function ArchiveDataTable({ table, loading, emptyMessage, onOpen }: ArchiveDataTableProps) {
  const rows = table.getRowModel().rows;
  return (
    <div className={cn("overflow-hidden rounded-xl border bg-card transition-opacity", loading && "opacity-60")} aria-busy={loading}>
      <Table aria-label="Archived conversations">
        <TableHeader className="bg-muted/40">
          {table.getHeaderGroups().map((group) => (
            <TableRow key={group.id} className="hover:bg-transparent">
              {group.headers.map((header) => (
                <TableHead
                  key={header.id}
                  className={cn(header.column.id === "select" && "w-10 pl-4", header.column.id === "actions" && "w-12", narrowHidden(header.column.id))}
                  aria-sort={ariaSort(header.column.getIsSorted(), header.column.getCanSort())}
                >
                  {header.isPlaceholder ? null : <table.FlexRender header={header} />}
                </TableHead>
              ))}
            </TableRow>
          ))}
        </TableHeader>
        <TableBody>
          {rows.length === 0 ? (
            <TableRow className="hover:bg-transparent">
              <TableCell colSpan={table.getAllLeafColumns().length} className="h-40 text-center whitespace-normal text-muted-foreground">
                <div className="flex flex-col items-center gap-2">
                  <ArchiveIcon className="size-6" />
                  {emptyMessage}
                </div>
              </TableCell>
            </TableRow>
          ) : (
            rows.map((row) => (
              <TableRow
                key={row.id}
                data-state={row.getIsSelected() ? "selected" : undefined}
                className="cursor-pointer"
                onClick={(event) => {
                  if ((event.target as HTMLElement).closest("button, a, [role=checkbox]")) return;
                  onOpen(row.original);
                }}
              >
                {row.getAllCells().map((cell) => (
                  <TableCell
                    key={cell.id}
                    className={cn(cell.column.id === "select" && "pl-4", cell.column.id === "title" && "max-w-0 w-full", narrowHidden(cell.column.id))}
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
  );
}
