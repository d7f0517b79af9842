"use client";

import { CheckIcon, CircleAlertIcon, FolderIcon, FolderSearchIcon, Loader2Icon } from "lucide-react";
import { Popover } from "radix-ui";
import { useEffect, useId, useState } from "react";
import type { Project } from "@/lib/store/projects";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { cn } from "@/lib/utils";
import { folderName } from "@/components/shared/format";
import { FolderBrowser } from "./folder-browser";
import { useAgentProjects } from "./use-agent-projects";

export type FolderCheck = { ok: true; path: string } | { ok: false; message: string };
/** Checks a typed folder on the server (a server action the page hands down). */
export type CheckFolder = (folder: string) => Promise<FolderCheck>;

const PILL = "h-8 max-w-[14rem] gap-1.5 rounded-full border-transparent bg-muted/60 px-3 text-xs font-normal shadow-none hover:bg-muted";
const CHECK_PAUSE_MS = 250;
const SHOWN_PROJECTS = 10;

interface ProjectPickerProps {
  /** The recent projects of the chosen machine, the last used first. */
  projects: Project[];
  machine: string;
  machineName: string;
  /** The chosen agent: its recent projects come first. */
  agent: string;
  value: string;
  defaultCwd: string;
  onChange: (cwd: string) => void;
  checkFolder: CheckFolder;
}

/**
 * The project (a folder on the chosen machine): the agent's recent ones first, then the machine's
 * others; a folder browser; or any folder typed in, checked as it is typed. Enter confirms.
 */
export function ProjectPicker({ projects, machine, machineName, agent, value, defaultCwd, onChange, checkFolder }: ProjectPickerProps) {
  const [open, setOpen] = useState(false);
  const [browsing, setBrowsing] = useState(false);
  const shown = value.trim() || defaultCwd;
  const choices = projects.some((project) => project.path === defaultCwd) ? projects : [...projects, { machine, path: defaultCwd, name: folderName(defaultCwd), lastUsedAt: "" }];
  const agentPaths = useAgentProjects(open, machine, agent);
  const mine = choices.filter((project) => agentPaths.includes(project.path)).sort((a, b) => agentPaths.indexOf(a.path) - agentPaths.indexOf(b.path));
  const others = choices.filter((project) => !agentPaths.includes(project.path));
  const pick = (path: string) => {
    onChange(path);
    setOpen(false);
  };
  return (
    <Popover.Root
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (!next) setBrowsing(false);
      }}
    >
      <Popover.Trigger asChild>
        <Button type="button" variant="ghost" size="sm" className={PILL} aria-label={`Working directory: ${shown}`} title={`${shown} (on ${machineName})`}>
          <FolderIcon className="size-3.5" />
          <span className="truncate">{folderName(shown)}</span>
        </Button>
      </Popover.Trigger>
      <Popover.Portal>
        <Popover.Content align="start" sideOffset={6} collisionPadding={8} className="z-50 grid w-[22rem] max-w-[calc(100vw-1rem)] gap-3 rounded-lg border bg-popover p-3 text-sm text-popover-foreground shadow-md outline-none">
          {browsing ? (
            <FolderBrowser machine={machine} machineName={machineName} start={shown} onOpen={onChange} onUse={pick} />
          ) : (
            <div role="group" aria-label="Recent projects" className="grid gap-0.5">
              {/* Long lists scroll inside the popover, so the folder field below always stays on screen. */}
              <div className="grid max-h-56 gap-0.5 overflow-y-auto">
                {mine.length > 0 && <ProjectList heading={`Recent with ${agent === "default" ? "the default agent" : agent} on ${machineName}`} choices={mine} selected={shown} onPick={pick} />}
                <ProjectList heading={mine.length > 0 ? "Other recent projects" : `Recent projects on ${machineName}`} choices={others.slice(0, Math.max(0, SHOWN_PROJECTS - mine.length))} selected={shown} onPick={pick} />
              </div>
            </div>
          )}
          <Button type="button" variant="outline" size="sm" aria-pressed={browsing} onClick={() => setBrowsing(!browsing)}>
            <FolderSearchIcon />
            {browsing ? "Back to recent projects" : "Browse folders…"}
          </Button>
          <FolderField value={value} defaultCwd={defaultCwd} onChange={onChange} onConfirm={() => setOpen(false)} checkFolder={checkFolder} />
        </Popover.Content>
      </Popover.Portal>
    </Popover.Root>
  );
}

function ProjectList({ heading, choices, selected, onPick }: { heading: string; choices: Project[]; selected: string; onPick: (path: string) => void }) {
  if (choices.length === 0) return null;
  return (
    <>
      <p className="px-1 pt-1 pb-1 text-xs font-medium text-muted-foreground">{heading}</p>
      {choices.map((project) => (
        <button
          key={project.path}
          type="button"
          aria-pressed={project.path === selected}
          title={project.path}
          onClick={() => onPick(project.path)}
          className="flex items-center gap-2 rounded-md px-2 py-1.5 text-left outline-none hover:bg-accent focus-visible:ring-[3px] focus-visible:ring-ring/50"
        >
          <FolderIcon className="size-3.5 shrink-0 text-muted-foreground" />
          <span className="grid min-w-0 flex-1">
            <span className="truncate font-medium">{project.name}</span>
            <span className="truncate font-mono text-xs text-muted-foreground">{project.path}</span>
          </span>
          <CheckIcon className={cn("size-3.5 shrink-0", project.path !== selected && "invisible")} />
        </button>
      ))}
    </>
  );
}

/** A folder checked (after a pause in typing) on the server: found, or why not. */
function useFolderCheck(folder: string, checkFolder: CheckFolder) {
  const [check, setCheck] = useState<FolderCheck | "checking" | null>(null);
  useEffect(() => {
    if (folder.trim() === "") {
      setCheck(null);
      return;
    }
    let current = true;
    setCheck("checking");
    const timer = window.setTimeout(() => {
      checkFolder(folder).then(
        (result) => current && setCheck(result),
        () => current && setCheck({ ok: false, message: "The folder could not be checked." }),
      );
    }, CHECK_PAUSE_MS);
    return () => {
      current = false;
      window.clearTimeout(timer);
    };
  }, [folder, checkFolder]);
  return check;
}

interface FolderFieldProps {
  value: string;
  defaultCwd: string;
  onChange: (cwd: string) => void;
  onConfirm: () => void;
  checkFolder: CheckFolder;
}

function FolderField({ value, defaultCwd, onChange, onConfirm, checkFolder }: FolderFieldProps) {
  const inputId = useId();
  const check = useFolderCheck(value, checkFolder);
  return (
    <div className="grid gap-1.5 border-t pt-3">
      <Label htmlFor={inputId}>Working directory</Label>
      <Input
        id={inputId}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        placeholder={defaultCwd}
        spellCheck={false}
        aria-describedby={`${inputId}-check`}
        aria-invalid={typeof check === "object" && check !== null && !check.ok}
        className="font-mono text-xs"
        onKeyDown={(event) => {
          if (event.key !== "Enter") return;
          event.preventDefault();
          if (check === null || (check !== "checking" && check.ok)) onConfirm();
        }}
      />
      <p id={`${inputId}-check`} role="status" className="flex items-center gap-1.5 text-xs text-muted-foreground">
        {check === "checking" && <Loader2Icon className="size-3 animate-spin" />}
        {check !== null && check !== "checking" && (check.ok ? <CheckIcon className="size-3 text-success" /> : <CircleAlertIcon className="size-3 text-destructive" />)}
        {check === null ? `Type a full path, or pick one above. Empty: ${defaultCwd}` : check === "checking" ? "Checking…" : check.ok ? "Folder found. Enter to use it." : check.message}
      </p>
    </div>
  );
}
