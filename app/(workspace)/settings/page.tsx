import type { Metadata } from "next";
import { headers } from "next/headers";
import { PageHeader } from "@/components/sidebar/page-header";
import { NotificationSettings } from "@/components/settings/notification-settings";
import { SessionSettings } from "@/components/settings/session-settings";
import { SettingsNav } from "@/components/settings/settings-nav";
import { sessionIdFrom } from "@/lib/auth/session";
import { getSessionStore } from "@/lib/engine/runtime-registry";
import { assertSignedIn } from "../workspace-data";

export const metadata: Metadata = { title: "Settings" };

export default async function SettingsPage() {
  await assertSignedIn();
  const sessions = await getSessionStore().list(sessionIdFrom({ cookie: (await headers()).get("cookie") }));
  return (
    <>
      <PageHeader title="Settings" />
      <SettingsNav />
      <div className="mx-auto grid w-full max-w-2xl gap-4 overflow-y-auto p-4 md:p-6">
        <NotificationSettings />
        <SessionSettings sessions={sessions} />
      </div>
    </>
  );
}
