import type { Metadata } from "next";
import { PageHeader } from "@/components/sidebar/page-header";
import { NotificationSettings } from "@/components/settings/notification-settings";
import { SettingsNav } from "@/components/settings/settings-nav";
import { assertSignedIn } from "../workspace-data";

export const metadata: Metadata = { title: "Settings" };

export default async function SettingsPage() {
  await assertSignedIn();
  return (
    <>
      <PageHeader title="Settings" />
      <SettingsNav />
      <div className="mx-auto grid w-full max-w-2xl gap-4 overflow-y-auto p-4 md:p-6">
        <NotificationSettings />
      </div>
    </>
  );
}
