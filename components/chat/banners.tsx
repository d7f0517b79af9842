"use client";

import { AlertTriangleIcon, ArchiveIcon, FlagIcon, Loader2Icon } from "lucide-react";
import { useState } from "react";
import type { Conversation, ModelInfo } from "@/lib/events/entities";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { ModelPicker } from "./model-controls";

/** After a move (DESIGN §2): says what is missing on this machine and lets the owner pick a replacement. */
export function MissingBanner({
  conversation,
  models,
  onPatch,
}: {
  conversation: Conversation;
  models: ModelInfo[];
  onPatch: (patch: { cwd?: string; model?: string }) => Promise<boolean>;
}) {
  const [cwd, setCwd] = useState("");
  const [model, setModel] = useState("");
  const [saving, setSaving] = useState(false);
  // An offline machine has its own banner (MachineOfflineBanner).
  const missing = conversation.missing.filter((part) => part !== "machine");
  if (missing.length === 0) return null;

  const save = async (patch: { cwd?: string; model?: string }) => {
    setSaving(true);
    await onPatch(patch);
    setSaving(false);
  };

  return (
    <div role="alert" className="border-b border-warning/40 bg-warning/10 px-4 py-3 text-sm">
      <div className="mx-auto grid max-w-3xl gap-3">
        <p className="flex items-start gap-2 font-medium">
          <AlertTriangleIcon className="mt-0.5 size-4 shrink-0 text-warning-foreground" />
          This conversation was moved, and parts of it are missing on this machine. Fix them before sending.
        </p>
        {missing.includes("cwd") && (
          <form
            className="grid gap-1.5 sm:flex sm:items-center"
            onSubmit={(event) => {
              event.preventDefault();
              if (cwd.trim()) void save({ cwd: cwd.trim() });
            }}
          >
            <label htmlFor="missing-cwd" className="text-muted-foreground sm:w-64 sm:shrink-0">
              Working directory <code className="text-xs break-all">{conversation.cwd}</code> does not exist.
            </label>
            <Input id="missing-cwd" value={cwd} onChange={(event) => setCwd(event.target.value)} placeholder="/path/to/project" className="h-8 bg-background" />
            <Button type="submit" size="sm" disabled={saving || cwd.trim() === ""}>
              {saving && <Loader2Icon className="animate-spin" />}
              Use this directory
            </Button>
          </form>
        )}
        {missing.includes("model") && (
          <div className="grid gap-1.5 sm:flex sm:items-center">
            <span className="text-muted-foreground sm:w-64 sm:shrink-0">
              Model <code className="text-xs">{conversation.model}</code> is not configured here.
            </span>
            <ModelPicker models={models} value={model || conversation.model} onChange={setModel} />
            <Button size="sm" disabled={saving || model === ""} onClick={() => void save({ model })}>
              Use this model
            </Button>
          </div>
        )}
        {missing.includes("agent") && (
          <p className="text-muted-foreground">
            The agent <code className="text-xs">{conversation.agent}</code> is not defined on this machine. Add{" "}
            <code className="text-xs">agents/{conversation.agent}.md</code> to Atrium&apos;s data directory to continue this conversation.
          </p>
        )}
      </div>
    </div>
  );
}

export function ArchivedBanner({ onUnarchive }: { onUnarchive: () => void }) {
  return (
    <div className="border-b bg-muted/50 px-4 py-2 text-sm">
      <div className="mx-auto flex max-w-3xl items-center gap-2">
        <ArchiveIcon className="size-4 text-muted-foreground" />
        <span className="flex-1 text-muted-foreground">This conversation is archived.</span>
        <Button size="xs" variant="outline" onClick={onUnarchive}>
          Unarchive
        </Button>
      </div>
    </div>
  );
}

const OPEN_OBJECTIVE = new Set(["open", "paused", "waiting_event", "blocked"]);

export function ObjectiveBanner({
  objective,
  onSetStatus,
}: {
  objective: NonNullable<Conversation["objective"]>;
  onSetStatus: (status: "completed" | "cancelled") => void;
}) {
  if (!OPEN_OBJECTIVE.has(objective.status)) return null;
  const statusText =
    objective.status === "open" ? "working" : objective.status === "paused" ? "paused" : objective.status === "blocked" ? "blocked" : "waiting for an event";
  return (
    <div role="region" aria-label="Objective" className="border-b bg-info/8 px-4 py-2 text-sm">
      <div className="mx-auto flex max-w-3xl flex-wrap items-center gap-x-3 gap-y-1">
        <FlagIcon className="size-4 shrink-0 text-info" />
        <span className="min-w-0 flex-1">
          <span className="font-medium">Objective:</span> {objective.text}
          <span className="ml-2 text-xs text-muted-foreground">
            {statusText} · slice {objective.slices} of {objective.sliceLimit}
            {objective.reason ? ` · ${objective.reason}` : ""}
          </span>
        </span>
        <div className="flex gap-1.5">
          <Button size="xs" variant="outline" onClick={() => onSetStatus("completed")}>
            Done
          </Button>
          <Button size="xs" variant="ghost" onClick={() => onSetStatus("cancelled")}>
            Cancel objective
          </Button>
        </div>
      </div>
    </div>
  );
}
