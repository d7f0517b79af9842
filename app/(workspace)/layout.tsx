import { WorkspaceShell } from "@/components/sidebar/workspace-shell";
import { loadSidebar } from "./workspace-data";

export const dynamic = "force-dynamic";

export default async function WorkspaceLayout({ children }: { children: React.ReactNode }) {
  const { conversations, pendingApprovals } = await loadSidebar();
  return (
    <WorkspaceShell initialConversations={conversations} initialPendingApprovals={pendingApprovals}>
      {children}
    </WorkspaceShell>
  );
}
