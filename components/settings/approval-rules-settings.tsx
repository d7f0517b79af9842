"use client";

import { FolderIcon, Loader2Icon, Trash2Icon } from "lucide-react";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { toast } from "sonner";
import type { ApprovalRule } from "@/lib/tools/approval-rules";
import { Button } from "@/components/ui/button";
import { apiFetch, errorMessage } from "@/components/shared/api-client";
import { folderName } from "@/components/shared/format";

/** The "always allow" rules, by project; removing one makes matching calls ask again. */
export function ApprovalRulesSettings({ rules }: { rules: ApprovalRule[] }) {
  const projects = [...new Set(rules.map((rule) => `${rule.machine}\u0000${rule.path}`))].map((key) => key.split("\u0000") as [string, string]);
  return (
    <section aria-labelledby="approval-rules-heading" className="grid gap-3">
      <div>
        <h2 id="approval-rules-heading" className="text-sm font-semibold">
          Always allowed
        </h2>
        <p className="text-xs text-muted-foreground">
          Made by “Always allow in this project” on an approval. A matching call in that project runs without asking, still inside the sandbox. Policies per tool stay in config.json and the agent files.
        </p>
      </div>
      {projects.length === 0 ? (
        <p className="rounded-lg border px-3 py-4 text-sm text-muted-foreground">No rules yet: every call that asks will keep asking.</p>
      ) : (
        projects.map(([machine, path]) => <ProjectRules key={`${machine}:${path}`} machine={machine} path={path} rules={rules.filter((rule) => rule.machine === machine && rule.path === path)} />)
      )}
    </section>
  );
}

function ProjectRules({ machine, path, rules }: { machine: string; path: string; rules: ApprovalRule[] }) {
  return (
    <div role="group" aria-label={`Rules for ${folderName(path)}`} className="rounded-lg border">
      <p className="flex items-center gap-2 border-b bg-muted/40 px-3 py-2 text-sm font-medium" title={`${path} on ${machine}`}>
        <FolderIcon className="size-4 text-muted-foreground" aria-hidden />
        {folderName(path)}
        <span className="truncate font-mono text-xs font-normal text-muted-foreground">
          {path} · {machine}
        </span>
      </p>
      <ul className="divide-y">
        {rules.map((rule) => (
          <RuleRow key={rule.id} rule={rule} />
        ))}
      </ul>
    </div>
  );
}

function RuleRow({ rule }: { rule: ApprovalRule }) {
  const router = useRouter();
  const [removing, setRemoving] = useState(false);
  const label = rule.commandPrefix ? `shell commands starting “${rule.commandPrefix}”` : `every ${rule.tool} call`;
  const remove = async () => {
    setRemoving(true);
    try {
      await apiFetch(`/api/approval-rules/${rule.id}`, { method: "DELETE" });
      toast.success(`Removed: ${label} will ask again`);
      router.refresh();
    } catch (error) {
      toast.error(`Could not remove the rule: ${errorMessage(error)}`);
      setRemoving(false);
    }
  };
  return (
    <li className="flex items-center gap-3 px-3 py-2 text-sm">
      <span className="min-w-0 flex-1">
        <span className="font-mono">{rule.tool}</span>
        {rule.commandPrefix && (
          <>
            {" "}
            <code className="rounded bg-muted px-1 py-0.5 font-mono text-xs">{rule.commandPrefix}</code>
          </>
        )}
        <span className="ml-2 text-xs text-muted-foreground">{label}</span>
      </span>
      <Button size="sm" variant="ghost" aria-label={`Remove the rule for ${rule.commandPrefix ?? rule.tool}`} disabled={removing} onClick={() => void remove()}>
        {removing ? <Loader2Icon className="animate-spin" /> : <Trash2Icon />}
        Remove
      </Button>
    </li>
  );
}
