import type { Metadata } from "next";
import { ArchiveTable } from "@/components/archive/archive-table";
import { getRuntime } from "@/lib/engine/runtime-registry";
import { ARCHIVE_PAGE_SIZE } from "@/components/archive/archive-query";

export const metadata: Metadata = { title: "Archive" };
export const dynamic = "force-dynamic";

export default function ArchivePage() {
  const runtime = getRuntime();
  const first = runtime.listConversations({ archived: "true", offset: 0, limit: ARCHIVE_PAGE_SIZE, sort: "updated", direction: "desc" });
  return <ArchiveTable initialPage={first} models={runtime.models.list().map((model) => model.id)} />;
}
