import type { Conversation } from "@/lib/events/entities";

export const ARCHIVE_PAGE_SIZE = 20;

export type ArchiveSort = "title" | "updated" | "created" | "model";

export interface ArchiveQuery {
  pageIndex: number;
  pageSize: number;
  sort: ArchiveSort;
  desc: boolean;
  q: string;
  model: string | null;
}

export interface ArchivePage {
  conversations: Conversation[];
  total: number | null;
  nextCursor?: string | null;
}

/** GET /api/conversations with the table's server-side paging, sort, filter and search. The cursor is an offset. */
export function archiveUrl(query: ArchiveQuery): string {
  const params = new URLSearchParams({
    archived: "true",
    limit: String(query.pageSize),
    sort: query.sort,
    direction: query.desc ? "desc" : "asc",
  });
  if (query.pageIndex > 0) params.set("cursor", String(query.pageIndex * query.pageSize));
  if (query.q.trim()) params.set("q", query.q.trim());
  if (query.model) params.set("model", query.model);
  return `/api/conversations?${params}`;
}
