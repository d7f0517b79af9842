"use client";

import { ChevronLeftIcon, ChevronRightIcon } from "lucide-react";
import type { PaginationState } from "@tanstack/react-table";
import { Button } from "@/components/ui/button";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import type { ArchivePage } from "./archive-query";

const PAGE_SIZES = [10, 20, 50, 100];

interface ArchivePaginationProps {
  page: ArchivePage;
  /** The server's count of all matches, or null when it did not give one. */
  total: number | null;
  pagination: PaginationState;
  onPaginationChange: (change: (current: PaginationState) => PaginationState) => void;
}

/** Under the table: which rows these are, rows per page, and the way to the pages around. */
export function ArchivePagination({ page, total, pagination, onPaginationChange }: ArchivePaginationProps) {
  const { pageIndex, pageSize } = pagination;
  const shown = page.conversations.length;
  const from = shown === 0 ? 0 : pageIndex * pageSize + 1;
  const to = pageIndex * pageSize + shown;
  const pageCount = total !== null ? Math.max(1, Math.ceil(total / pageSize)) : null;
  // Without a total, paging falls back to "is this page full?".
  const hasNext = pageCount !== null ? pageIndex + 1 < pageCount : page.nextCursor != null || shown === pageSize;

  return (
    <div className="flex flex-wrap items-center justify-between gap-3 text-sm text-muted-foreground">
      <span aria-live="polite">{shown === 0 ? "0 conversations" : total !== null ? `${from}–${to} of ${total}` : `${from}–${to}`}</span>
      <div className="flex items-center gap-2">
        <Select value={String(pageSize)} onValueChange={(value) => onPaginationChange(() => ({ pageIndex: 0, pageSize: Number(value) }))}>
          <SelectTrigger size="sm" aria-label="Rows per page" className="w-[8.75rem]">
            <SelectValue>{pageSize} per page</SelectValue>
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
          Page {pageIndex + 1}
          {pageCount !== null ? ` of ${pageCount}` : ""}
        </span>
        <Button
          size="icon-sm"
          variant="outline"
          aria-label="Previous page"
          disabled={pageIndex === 0}
          onClick={() => onPaginationChange((current) => ({ ...current, pageIndex: Math.max(0, current.pageIndex - 1) }))}
        >
          <ChevronLeftIcon />
        </Button>
        <Button
          size="icon-sm"
          variant="outline"
          aria-label="Next page"
          disabled={!hasNext}
          onClick={() => onPaginationChange((current) => ({ ...current, pageIndex: current.pageIndex + 1 }))}
        >
          <ChevronRightIcon />
        </Button>
      </div>
    </div>
  );
}
