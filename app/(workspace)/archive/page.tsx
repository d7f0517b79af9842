import type { Metadata } from "next";
import { ArchiveTable } from "@/components/archive/archive-table";
import { ARCHIVE_PAGE_SIZE } from "@/components/archive/archive-query";
import { signedInRuntime } from "../workspace-data";

export const metadata: Metadata = { title: "Archive" };

export const dynamic = "force-dynamic";

export default async function ArchivePage() {
  const runtime = await signedInRuntime();
  const first = await runtime.listConversations({ archived: "true", offset: 0, limit: ARCHIVE_PAGE_SIZE, sort: "updated", direction: "desc" });
  return <ArchiveTable initialPage={first} models={runtime.models.list().map((model) => model.id)} />;
}
