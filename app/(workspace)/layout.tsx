import { cookies } from "next/headers";
import { WorkspaceShell } from "@/components/sidebar/workspace-shell";
import { parseSidebarPrefs } from "@/components/sidebar/sidebar-prefs";
import { loadSidebar } from "./workspace-data";

export const dynamic = "force-dynamic";

export default async function WorkspaceLayout({ children }: { children: React.ReactNode }) {
  const { conversations, pendingApprovals } = await loadSidebar();
  const jar = await cookies();
  const prefs = parseSidebarPrefs((name) => jar.get(name)?.value);
  return (
    <WorkspaceShell initialConversations={conversations} initialPendingApprovals={pendingApprovals} prefs={prefs}>
      {children}
    </WorkspaceShell>
  );
}
