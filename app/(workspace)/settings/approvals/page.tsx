import type { Metadata } from "next";
import { ApprovalRulesSettings } from "@/components/settings/approval-rules-settings";
import { PageHeader } from "@/components/sidebar/page-header";
import { SettingsNav } from "@/components/settings/settings-nav";
import { approvalRulesOf } from "@/lib/tools/approval-rules";
import { signedInRuntime } from "../../workspace-data";

export const metadata: Metadata = { title: "Approvals" };
export const dynamic = "force-dynamic";

export default async function ApprovalSettingsPage() {
  const runtime = await signedInRuntime();
  return (
    <>
      <PageHeader title="Settings" />
      <SettingsNav />
      <div className="mx-auto grid w-full max-w-3xl gap-4 overflow-y-auto p-4 md:p-6">
        <ApprovalRulesSettings rules={await approvalRulesOf(runtime.store.paths.home).list()} />
      </div>
    </>
  );
}
