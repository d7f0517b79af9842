import type { ToolsOverview } from "@/lib/events/entities";
import { Badge } from "@/components/ui/badge";

const MODE_TEXT = {
  "workspace-write": "workspace-write: commands may write the working directory and sandbox.writable, nothing else",
  "read-only": "read-only: commands may read but write nowhere",
  off: "off: commands run as the server's user, unconfined",
} as const;

/** Settings → Tools: the sandbox the tools run in (DESIGN §5), and whether this machine can provide it. */
export function SandboxSection({ sandbox }: { sandbox: ToolsOverview["sandbox"] }) {
  const missing = sandbox.mode !== "off" && sandbox.backend === null;
  return (
    <section aria-labelledby="section-sandbox" className="grid grid-cols-1 gap-2">
      <div>
        <h2 id="section-sandbox" className="text-sm font-semibold">
          Sandbox
        </h2>
        <p className="text-xs text-muted-foreground">Shell commands and MCP stdio servers run confined; the file tools follow the same rules. Set it under sandbox in config.json.</p>
      </div>
      <dl className="grid grid-cols-[max-content_minmax(0,1fr)] gap-x-4 gap-y-2 rounded-lg border px-3 py-3 text-sm" aria-label="Sandbox">
        <dt className="text-muted-foreground">Status</dt>
        <dd>
          {sandbox.active ? (
            <Badge variant="success">sandboxed</Badge>
          ) : (
            <Badge variant="warning">not sandboxed</Badge>
          )}
        </dd>
        <dt className="text-muted-foreground">Mode</dt>
        <dd>{MODE_TEXT[sandbox.mode]}</dd>
        <dt className="text-muted-foreground">Program</dt>
        <dd>
          {sandbox.backend === "bwrap" && "bubblewrap (bwrap) found"}
          {sandbox.backend === "sandbox-exec" && "sandbox-exec found"}
          {sandbox.backend === null && (missing ? "none found: every shell call asks for approval. On Linux install bubblewrap." : "none found")}
        </dd>
        <dt className="text-muted-foreground">Network</dt>
        <dd>{sandbox.network ? "allowed" : "blocked"}</dd>
        <dt className="text-muted-foreground">Also writable</dt>
        <dd className="font-mono text-xs">{sandbox.writable.length === 0 ? "—" : sandbox.writable.join(", ")}</dd>
        <dt className="text-muted-foreground">Hidden</dt>
        <dd>Atrium&apos;s data directory ($ATRIUM_HOME) and other processes</dd>
      </dl>
    </section>
  );
}
