"use client";

import { ArchiveRestoreIcon, ArrowDownIcon, ArrowUpDownIcon, ArrowUpIcon, ShieldIcon } from "lucide-react";
import Link from "next/link";
import {
  createColumnHelper,
  rowPaginationFeature,
  rowSelectionFeature,
  rowSortingFeature,
  tableFeatures,
  type Column,
} from "@tanstack/react-table";
import type { Conversation } from "@/lib/events/entities";
import { Button } from "@/components/ui/button";
import { Checkbox } from "@/components/ui/checkbox";
import { dateTime, relativeTime } from "@/components/shared/format";

export const archiveFeatures = tableFeatures({ rowSortingFeature, rowPaginationFeature, rowSelectionFeature });

const helper = createColumnHelper<typeof archiveFeatures, Conversation>();

export interface ArchiveTableMeta {
  onUnarchive: (conversation: Conversation) => void;
}

function SortHeader<TValue>({ column, label }: { column: Column<typeof archiveFeatures, Conversation, TValue>; label: string }) {
  const sorted = column.getIsSorted();
  const Icon = sorted === "asc" ? ArrowUpIcon : sorted === "desc" ? ArrowDownIcon : ArrowUpDownIcon;
  return (
    <Button
      variant="ghost"
      size="xs"
      className="-ml-2 font-medium"
      onClick={column.getToggleSortingHandler()}
      aria-label={`Sort by ${label.toLowerCase()}${sorted ? (sorted === "asc" ? ", ascending" : ", descending") : ""}`}
    >
      {label}
      <Icon className={sorted ? "text-foreground" : "text-muted-foreground/60"} />
    </Button>
  );
}

export function archiveColumns(meta: ArchiveTableMeta) {
  return helper.columns([
    helper.display({
      id: "select",
      header: ({ table }) => (
        <Checkbox
          checked={table.getIsAllPageRowsSelected() ? true : table.getIsSomePageRowsSelected() ? "indeterminate" : false}
          onCheckedChange={(value) => table.toggleAllPageRowsSelected(value === true)}
          aria-label="Select all on this page"
        />
      ),
      cell: ({ row }) => (
        <Checkbox
          checked={row.getIsSelected()}
          onClick={(event) => {
            event.stopPropagation();
            row.getToggleSelectedHandler()(event);
          }}
          aria-label={`Select “${row.original.title}”`}
        />
      ),
    }),
    helper.accessor("title", {
      id: "title",
      header: ({ column }) => <SortHeader column={column} label="Title" />,
      cell: ({ row }) => (
        <span className="flex min-w-0 items-center gap-1.5">
          <Link href={`/c/${row.original.id}`} prefetch={false} className="truncate font-medium hover:underline" onClick={(event) => event.stopPropagation()}>
            {row.original.title}
          </Link>
          {row.original.protected && <ShieldIcon className="size-3.5 shrink-0 text-muted-foreground" aria-label="Protected" />}
        </span>
      ),
    }),
    helper.accessor("model", {
      id: "model",
      header: ({ column }) => <SortHeader column={column} label="Model" />,
      cell: ({ getValue }) => <code className="text-xs text-muted-foreground">{getValue()}</code>,
    }),
    helper.accessor("createdAt", {
      id: "created",
      header: ({ column }) => <SortHeader column={column} label="Created" />,
      cell: ({ getValue }) => (
        <time dateTime={getValue()} title={dateTime(getValue())} className="text-muted-foreground tabular-nums" suppressHydrationWarning>
          {relativeTime(getValue())}
        </time>
      ),
    }),
    helper.accessor("updatedAt", {
      id: "updated",
      header: ({ column }) => <SortHeader column={column} label="Updated" />,
      cell: ({ getValue }) => (
        <time dateTime={getValue()} title={dateTime(getValue())} className="text-muted-foreground tabular-nums" suppressHydrationWarning>
          {relativeTime(getValue())}
        </time>
      ),
    }),
    helper.display({
      id: "actions",
      header: () => <span className="sr-only">Actions</span>,
      cell: ({ row }) => (
        <Button
          variant="ghost"
          size="icon-xs"
          aria-label={`Unarchive “${row.original.title}”`}
          title="Unarchive"
          onClick={(event) => {
            event.stopPropagation();
            meta.onUnarchive(row.original);
          }}
        >
          <ArchiveRestoreIcon />
        </Button>
      ),
    }),
  ]);
}
