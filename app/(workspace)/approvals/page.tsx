import type { Metadata } from "next";
import { ApprovalsList } from "@/components/approvals/approvals-list";
import { findConversation, signedInRuntime } from "../workspace-data";

export const metadata: Metadata = { title: "Approvals" };
export const dynamic = "force-dynamic";

export default async function ApprovalsPage() {
  const runtime = await signedInRuntime();
  const approvals = runtime.listApprovals();
  const titles: Record<string, string> = {};
  for (const approval of approvals) {
    if (titles[approval.conversationId] !== undefined) continue;
    titles[approval.conversationId] = findConversation(runtime, approval.conversationId)?.title ?? "Deleted conversation";
  }
  return <ApprovalsList initialApprovals={approvals} initialTitles={titles} />;
}
