"use client";

import { FilterIcon, XIcon } from "lucide-react";
import { useMemo, type Ref } from "react";
import type { Conversation } from "@/lib/events/entities";
import { Button } from "@/components/ui/button";
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuLabel,
  DropdownMenuRadioGroup,
  DropdownMenuRadioItem,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from "@/components/ui/dropdown-menu";
import { folderName } from "@/components/shared/format";
import { projectKey } from "./sidebar-prefs";

export interface ProjectChoice {
  key: string;
  /** The folder's name, with the machine when it is not this one. */
  label: string;
  /** The full path and machine, for a tooltip. */
  title: string;
}

/** A project key (machine NUL folder) as a reader sees it. */
export function projectChoice(key: string, machineName: (machineId: string) => string): ProjectChoice {
  const [machine, ...rest] = key.split("\u0000");
  const cwd = rest.join("\u0000");
  const name = folderName(cwd);
  return { key, label: machine === "local" ? name : `${name} · ${machineName(machine)}`, title: `${cwd} on ${machineName(machine)}` };
}

/** The projects of the loaded conversations, most recently used first, and the chosen one even when none of them is in it. */
export function useProjectChoices(conversations: Conversation[], chosen: string | null, machineName: (machineId: string) => string): ProjectChoice[] {
  return useMemo(() => {
    const keys = [...new Set(conversations.map(projectKey))];
    if (chosen && !keys.includes(chosen)) keys.push(chosen);
    return keys.map((key) => projectChoice(key, machineName));
  }, [conversations, chosen, machineName]);
}

interface ProjectFilterProps {
  choices: ProjectChoice[];
  chosen: ProjectChoice | null;
  onChange: (key: string | null) => void;
  /** The button, so focus can come back to it when the bar's "All projects" goes away. */
  triggerRef?: Ref<HTMLButtonElement>;
}

/** Narrows the sidebar to one project; "All projects" (or the × beside the name) shows every one again. */
export function ProjectFilter({ choices, chosen, onChange, triggerRef }: ProjectFilterProps) {
  return (
    <DropdownMenu modal={false}>
      <DropdownMenuTrigger asChild>
        <Button
          ref={triggerRef}
          variant="ghost"
          size="sm"
          aria-label={chosen ? `Filter by project: ${chosen.label}` : "Filter by project"}
          title={chosen ? `Only ${chosen.title}` : "Show one project only"}
          data-filtered={chosen ? "true" : undefined}
          className="h-6 px-1.5 text-xs font-normal text-muted-foreground data-filtered:bg-sidebar-accent data-filtered:text-sidebar-accent-foreground [&_svg]:size-3.5"
        >
          <FilterIcon />
        </Button>
      </DropdownMenuTrigger>
      <DropdownMenuContent align="end" className="w-64">
        <DropdownMenuLabel className="text-xs text-muted-foreground">Show conversations in</DropdownMenuLabel>
        <DropdownMenuRadioGroup value={chosen?.key ?? ALL} onValueChange={(value) => onChange(value === ALL ? null : value)}>
          <DropdownMenuRadioItem value={ALL}>All projects</DropdownMenuRadioItem>
          <DropdownMenuSeparator />
          {choices.map((choice) => (
            <DropdownMenuRadioItem key={choice.key} value={choice.key} title={choice.title}>
              <span className="min-w-0 truncate">{choice.label}</span>
            </DropdownMenuRadioItem>
          ))}
        </DropdownMenuRadioGroup>
      </DropdownMenuContent>
    </DropdownMenu>
  );
}

/** The radio value of "All projects": a project key always holds a NUL, so it never equals this. */
const ALL = "all";

/** Above the list while it is narrowed: which project, and a way back to all of them. */
export function ProjectFilterBar({ chosen, onClear }: { chosen: ProjectChoice; onClear: () => void }) {
  return (
    <div className="mx-2 mb-1 flex h-7 items-center gap-1.5 rounded-md border border-dashed pr-0.5 pl-2 text-xs text-muted-foreground" role="group" aria-label="Project filter">
      <span className="min-w-0 flex-1 truncate" title={chosen.title}>
        Only <span className="font-medium text-foreground">{chosen.label}</span>
      </span>
      <Button variant="ghost" size="sm" className="h-6 gap-1 px-1.5 text-xs font-normal [&_svg]:size-3.5" onClick={onClear}>
        <XIcon />
        All projects
      </Button>
    </div>
  );
}

/** The list narrowed to a project left nothing: say so (the bar above offers "All projects"), and offer older pages. */
export function ProjectFilterEmpty({ chosen, more }: { chosen: ProjectChoice; more: { available: boolean; loading: boolean; load: () => void } }) {
  return (
    <div className="grid justify-items-center gap-2 px-2 py-6 text-center text-xs text-muted-foreground">
      <p>
        No conversations in{" "}
        <span className="font-medium text-foreground" title={chosen.title}>
          {chosen.label}
        </span>
        {more.available ? " among the recent ones." : "."}
      </p>
      {more.available && (
        <Button variant="ghost" size="sm" className="h-7 text-xs" disabled={more.loading} onClick={more.load}>
          Show older conversations
        </Button>
      )}
    </div>
  );
}
