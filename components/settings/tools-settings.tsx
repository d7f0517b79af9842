import Link from "next/link";
import type { ToolsOverview } from "@/lib/events/entities";
import { folderName } from "@/components/shared/format";
import { cn } from "@/lib/utils";
import { Badge } from "@/components/ui/badge";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { PageHeader } from "@/components/sidebar/page-header";
import { RefreshButton } from "./refresh-button";
import { SandboxSection } from "./sandbox-section";
import { SettingsNav } from "./settings-nav";

type Server = ToolsOverview["mcpServers"][number];
type Approval = ToolsOverview["tools"][number]["approval"];

const STATUS_VARIANT = { connected: "success", starting: "info", failed: "destructive" } as const;
const APPROVAL_VARIANT = { auto: "secondary", ask: "warning", deny: "destructive" } as const;

function ApprovalBadge({ approval }: { approval: Approval }) {
  return <Badge variant={APPROVAL_VARIANT[approval]}>{approval}</Badge>;
}

function Section({ title, description, children }: { title: string; description: string; children: React.ReactNode }) {
  const id = `section-${title.toLowerCase().replace(/\W+/g, "-")}`;
  return (
    <section aria-labelledby={id} className="grid grid-cols-1 gap-2">
      <div>
        <h2 id={id} className="text-sm font-semibold">
          {title}
        </h2>
        <p className="text-xs text-muted-foreground">{description}</p>
      </div>
      <div className="rounded-lg border">{children}</div>
    </section>
  );
}

function Empty({ text }: { text: string }) {
  return <p className="px-3 py-4 text-sm text-muted-foreground">{text}</p>;
}

function ServersTable({ servers }: { servers: Server[] }) {
  if (servers.length === 0) return <Empty text="No MCP servers are configured. Add them under mcpServers in config.json." />;
  return (
    <Table aria-label="MCP servers">
      <TableHeader>
        <TableRow>
          <TableHead>Server</TableHead>
          <TableHead>Transport</TableHead>
          <TableHead>Status</TableHead>
          <TableHead className="text-right">Tools</TableHead>
          <TableHead>Approval</TableHead>
        </TableRow>
      </TableHeader>
      <TableBody>
        {servers.map((server) => (
          <TableRow key={server.name} data-testid={`mcp-server-${server.name}`}>
            <TableCell className="font-medium">
              {server.name}
              {server.machine && <span className="block text-xs font-normal text-muted-foreground">on {server.machine}</span>}
            </TableCell>
            <TableCell>{server.transport === "http" ? "Streamable HTTP" : "stdio"}</TableCell>
            <TableCell className="max-w-md whitespace-normal">
              <Badge variant={STATUS_VARIANT[server.status]}>{server.status}</Badge>
              {server.error && <p className="mt-1 text-xs break-words text-destructive">{server.error}</p>}
            </TableCell>
            <TableCell className="text-right tabular-nums">{server.toolCount}</TableCell>
            <TableCell>
              <ApprovalBadge approval={server.approval} />
            </TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

/** Settings → Tools: what agents can use, where it comes from, and whether it asks first. */
export function ToolsSettings({ overview, project, projects }: { overview: ToolsOverview; project: ProjectChoiceEntry; projects: ProjectChoiceEntry[] }) {
  const cwd = project.path;
  const where = project.machine === "local" ? "" : ` on ${project.machineName}`;
  const builtin = overview.tools.filter((tool) => tool.source === "builtin");
  const mcp = overview.tools.filter((tool) => tool.source === "mcp");
  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <PageHeader title="Settings">
        <RefreshButton />
      </PageHeader>
      <SettingsNav />
      <main className="min-h-0 flex-1 overflow-y-auto">
        <div className="mx-auto grid max-w-4xl grid-cols-1 gap-8 p-4 break-words md:p-6">
          <SandboxSection sandbox={overview.sandbox} />
          <Section title="MCP servers" description="Started with Atrium (a server with a machine starts there when it connects); a failing server is retried with backoff.">
            <ServersTable servers={overview.mcpServers} />
          </Section>
          <ProjectChoice chosen={project} projects={projects} />
          <Section title="Skills" description={`From $ATRIUM_HOME/skills and ${cwd}/.atrium/skills${where} (the project's wins).`}>
            {overview.skills.length === 0 ? (
              <Empty text="No skills found. Add a folder with a SKILL.md under $ATRIUM_HOME/skills." />
            ) : (
              <Table aria-label="Skills">
                <TableHeader>
                  <TableRow>
                    <TableHead>Skill</TableHead>
                    <TableHead>Description</TableHead>
                    <TableHead>Source</TableHead>
                  </TableRow>
                </TableHeader>
                <TableBody>
                  {overview.skills.map((skill) => (
                    <TableRow key={skill.name}>
                      <TableCell className="font-medium" title={skill.path}>
                        {skill.name}
                      </TableCell>
                      <TableCell className="whitespace-normal text-muted-foreground">{skill.description}</TableCell>
                      <TableCell>{skill.source}</TableCell>
                    </TableRow>
                  ))}
                </TableBody>
              </Table>
            )}
          </Section>
          <Section title="Tools" description="The default agent's approval for each tool; agents can override it in their front matter.">
            <Table aria-label="Tools">
              <TableHeader>
                <TableRow>
                  <TableHead>Tool</TableHead>
                  <TableHead>Source</TableHead>
                  <TableHead>Approval</TableHead>
                </TableRow>
              </TableHeader>
              <TableBody>
                {[...builtin, ...mcp].map((tool) => (
                  <TableRow key={tool.name}>
                    <TableCell className="font-mono text-xs" title={tool.description}>
                      {tool.name}
                    </TableCell>
                    <TableCell>{tool.server ? `MCP · ${tool.server}` : "built-in"}</TableCell>
                    <TableCell>
                      <ApprovalBadge approval={tool.approval} />
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </Section>
        </div>
      </main>
    </div>
  );
}

/** A project the Tools page can show the skills of: a folder on a machine. */
export interface ProjectChoiceEntry {
  machine: string;
  machineName: string;
  path: string;
}

function choiceHref(entry: ProjectChoiceEntry): string {
  const machine = entry.machine === "local" ? "" : `&machine=${encodeURIComponent(entry.machine)}`;
  return `/settings/tools?cwd=${encodeURIComponent(entry.path)}${machine}`;
}

/** Whose project skills the page shows: the recent projects, as links; one on a linked machine names it. */
function ProjectChoice({ chosen, projects }: { chosen: ProjectChoiceEntry; projects: ProjectChoiceEntry[] }) {
  if (projects.length < 2) return null;
  return (
    <nav aria-label="Project" className="-mb-6 flex flex-wrap items-center gap-1.5 text-xs">
      <span className="text-muted-foreground">Skills of the project</span>
      {projects.map((entry) => {
        const current = entry.path === chosen.path && entry.machine === chosen.machine;
        const label = entry.machine === "local" ? folderName(entry.path) : `${folderName(entry.path)} · ${entry.machineName}`;
        return (
          <Link
            key={`${entry.machine}:${entry.path}`}
            href={choiceHref(entry)}
            aria-current={current ? "page" : undefined}
            title={entry.machine === "local" ? entry.path : `${entry.path} on ${entry.machineName}`}
            className={cn("rounded-full border px-2.5 py-0.5", current ? "border-primary bg-primary text-primary-foreground" : "text-muted-foreground hover:text-foreground")}
          >
            {label}
          </Link>
        );
      })}
    </nav>
  );
}
