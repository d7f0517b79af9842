import type { Metadata } from "next";
import { headers } from "next/headers";
import { PageHeader } from "@/components/sidebar/page-header";
import { MachinesSettings } from "@/components/machines/machines-settings";
import { SettingsNav } from "@/components/settings/settings-nav";
import { signedInRuntime } from "../../workspace-data";

export const metadata: Metadata = { title: "Machines" };
export const dynamic = "force-dynamic";

export default async function MachinesSettingsPage() {
  const runtime = await signedInRuntime();
  const requestHeaders = await headers();
  const host = requestHeaders.get("host") ?? "127.0.0.1:3000";
  return (
    <>
      <PageHeader title="Settings" />
      <SettingsNav />
      <MachinesSettings initial={runtime.machines.list()} gatewayUrl={`${requestHeaders.get("x-forwarded-proto") ?? "http"}://${host}`} />
    </>
  );
}
