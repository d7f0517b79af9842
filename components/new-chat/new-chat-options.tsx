"use client";

import { BotIcon } from "lucide-react";
import type { Agent } from "@/lib/events/entities";
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
