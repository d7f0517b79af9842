import type { Agent } from "@/lib/events/entities";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";

type AgentWithSource = Agent & { source: string | null };

/** Settings → Agents: the agents of $ATRIUM_HOME/agents and the built-in default, read-only. */
export function AgentsSettings({ agents, defaultModel }: { agents: AgentWithSource[]; defaultModel: string }) {
  return (
    <div className="mx-auto grid w-full max-w-4xl gap-3 overflow-y-auto p-4 md:p-6">
      <div>
        <h2 className="text-sm font-semibold">Agents</h2>
        <p className="text-xs text-muted-foreground">
          Markdown files in $ATRIUM_HOME/agents; a project&apos;s .atrium/agents adds its own (and wins by name) in its conversations.
        </p>
      </div>
      <AgentCards agents={agents} defaultModel={defaultModel} />
      <div className="overflow-x-auto rounded-lg border max-sm:hidden">
        <Table aria-label="Agents">
          <TableHeader>
            <TableRow>
              <TableHead>Agent</TableHead>
              <TableHead>Model</TableHead>
              <TableHead>Tools</TableHead>
              <TableHead>Source</TableHead>
            </TableRow>
          </TableHeader>
          <TableBody>
            {[...agents].sort((a, b) => a.name.localeCompare(b.name)).map((agent) => (
              <TableRow key={agent.name} data-testid={`agent-${agent.name}`} className="align-top">
                <TableCell className="whitespace-normal">
                  <span className="font-medium">{agent.name}</span>
                  <p className="max-w-xs text-xs text-muted-foreground">{agent.description}</p>
                </TableCell>
                <TableCell>{agent.model ?? <span className="text-muted-foreground">default ({defaultModel})</span>}</TableCell>
                <TableCell className="max-w-xs whitespace-normal">{agent.tools ? agent.tools.join(", ") : <span className="text-muted-foreground">all tools</span>}</TableCell>
                <TableCell className="max-w-xs font-mono text-xs break-all whitespace-normal">{agent.source ?? <span className="font-sans text-muted-foreground">built in</span>}</TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </div>
    </div>
  );
}

/** On a phone the table's columns do not fit: one card per agent. */
function AgentCards({ agents, defaultModel }: { agents: AgentWithSource[]; defaultModel: string }) {
  return (
    <ul aria-label="Agents" className="grid gap-2 sm:hidden">
      {[...agents].sort((a, b) => a.name.localeCompare(b.name)).map((agent) => (
        <li key={agent.name} className="grid gap-1 rounded-lg border p-3 text-sm">
          <p className="font-medium">{agent.name}</p>
          <p className="text-xs text-muted-foreground">{agent.description}</p>
          <p>
            <span className="text-muted-foreground">Model:</span> {agent.model ?? `default (${defaultModel})`} · <span className="text-muted-foreground">Tools:</span>{" "}
            {agent.tools ? agent.tools.join(", ") : "all tools"}
          </p>
          <p className="font-mono text-xs break-all text-muted-foreground">{agent.source ?? "built in"}</p>
        </li>
      ))}
    </ul>
  );
}
