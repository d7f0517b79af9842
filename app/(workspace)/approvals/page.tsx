import type { Metadata } from "next";
import { ApprovalsList } from "@/components/approvals/approvals-list";
import { findConversation, signedInRuntime } from "../workspace-data";

export const metadata: Metadata = { title: "Approvals" };
export const dynamic = "force-dynamic";

export default async function ApprovalsPage() {
  const runtime = await signedInRuntime();
  const approvals = await runtime.listApprovals();
  const titles: Record<string, string> = {};
  // Where each call would run (DESIGN §10b: approvals show the machine).
  const machineOf: Record<string, string> = {};
  for (const approval of approvals) {
    if (titles[approval.conversationId] !== undefined) continue;
    const conversation = await findConversation(runtime, approval.conversationId);
    titles[approval.conversationId] = conversation?.title ?? "Deleted conversation";
    if (conversation) machineOf[approval.conversationId] = conversation.machine;
  }
  return <ApprovalsList initialApprovals={approvals} initialTitles={titles} initialMachineOf={machineOf} initialMachines={runtime.machines.list()} />;
}
