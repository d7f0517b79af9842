"use client";

import { BotIcon, FolderIcon } from "lucide-react";
import { Popover } from "radix-ui";
import { useId } from "react";
import type { Agent } from "@/lib/events/entities";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";

const PILL = "h-8 max-w-[14rem] gap-1.5 rounded-full border-transparent bg-muted/60 px-3 text-xs shadow-none hover:bg-muted";

/** The agent choice, folded into the new chat's composer toolbar. */
export function AgentPicker({ agents, value, onChange }: { agents: Agent[]; value: string; onChange: (agent: string) => void }) {
  return (
    <Select value={value} onValueChange={onChange}>
      <SelectTrigger size="sm" aria-label="Agent" className={PILL}>
        <BotIcon className="size-3.5" />
        <SelectValue>{value}</SelectValue>
      </SelectTrigger>
      <SelectContent align="start">
        {agents.map((candidate) => (
          <SelectItem key={candidate.name} value={candidate.name}>
            <span className="grid">
              <span>{candidate.name}</span>
              {candidate.description && <span className="line-clamp-1 max-w-64 text-xs text-muted-foreground">{candidate.description}</span>}
            </span>
          </SelectItem>
        ))}
      </SelectContent>
    </Select>
  );
}

function lastSegment(path: string): string {
  const parts = path.split(/[\\/]/).filter(Boolean);
  return parts.at(-1) ?? path;
}

/** The working directory: a pill naming the folder; its popover holds the full path, prefilled with the default. */
export function CwdPicker({ value, defaultCwd, onChange }: { value: string; defaultCwd: string; onChange: (cwd: string) => void }) {
  const inputId = useId();
  const shown = value.trim() || defaultCwd;
  return (
    <Popover.Root>
      <Popover.Trigger asChild>
        <Button type="button" variant="ghost" size="sm" className={`${PILL} font-normal`} aria-label={`Working directory: ${shown}`} title={shown}>
          <FolderIcon className="size-3.5" />
          <span className="truncate">{lastSegment(shown)}</span>
        </Button>
      </Popover.Trigger>
      <Popover.Portal>
        <Popover.Content align="start" sideOffset={6} className="z-50 grid w-80 gap-1.5 rounded-lg border bg-popover p-3 text-sm text-popover-foreground shadow-md outline-none">
          <Label htmlFor={inputId}>Working directory</Label>
          <Input
            id={inputId}
            value={value}
            onChange={(event) => onChange(event.target.value)}
            placeholder={defaultCwd}
            spellCheck={false}
            className="font-mono text-xs"
            onKeyDown={(event) => {
              if (event.key === "Enter") event.preventDefault();
            }}
          />
          <p className="text-xs text-muted-foreground">The agent works in this folder. Empty: {defaultCwd}</p>
        </Popover.Content>
      </Popover.Portal>
    </Popover.Root>
  );
}
