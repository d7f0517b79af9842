"use client";

import { AlertTriangleIcon, ListTreeIcon, Loader2Icon } from "lucide-react";
import { useState } from "react";
import type { TimelineEntry, Turn } from "@/lib/events/entities";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle, DialogTrigger } from "@/components/ui/dialog";
import { SandboxLabel } from "@/components/shared/sandbox-label";
import { apiFetch, errorMessage } from "@/components/shared/api-client";

const KIND_LABEL: Record<TimelineEntry["kind"], string> = {
  model_call: "Model call",
  retry: "Retry",
  tool_call: "Tool call",
  compaction: "Compaction",
  steer: "Steer",
  approval: "Approval",
  question: "Question",
};

function statusVariant(status: string): "default" | "secondary" | "destructive" | "outline" {
  if (status === "failed" || status === "error" || status === "denied") return "destructive";
  if (status === "completed" || status === "ok" || status === "approved" || status === "answered") return "secondary";
  return "outline";
}

function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** A button that opens the timeline of one turn (DESIGN §6): model calls, retries, tool calls and waits. */
export function TurnTimelineButton({ turnId, className }: { turnId: string; className?: string }) {
  const [open, setOpen] = useState(false);
  const [data, setData] = useState<{ turn: Turn; timeline: TimelineEntry[] } | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = () => {
    setError(null);
    apiFetch<{ turn: Turn; timeline: TimelineEntry[] }>(`/api/turns/${turnId}`).then(setData, (reason) => setError(errorMessage(reason)));
  };

  return (
    <Dialog
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (next) load();
      }}
    >
      <DialogTrigger asChild>
        <Button variant="ghost" size="icon-xs" aria-label="Turn timeline" title="Turn timeline" className={className}>
          <ListTreeIcon />
        </Button>
      </DialogTrigger>
      <DialogContent className="max-h-[85vh] overflow-y-auto sm:max-w-xl">
        <DialogHeader>
          <DialogTitle>Turn timeline</DialogTitle>
          <DialogDescription>
            {data ? `${data.turn.model} · ${data.turn.status} · started ${new Date(data.turn.startedAt).toLocaleTimeString()}` : "What happened during this turn, in order."}
          </DialogDescription>
        </DialogHeader>
        {error && (
          <p role="alert" className="text-sm text-destructive">
            Could not load the timeline: {error}
          </p>
        )}
        {!data && !error && (
          <p className="flex items-center gap-2 text-sm text-muted-foreground">
            <Loader2Icon className="size-4 animate-spin" /> Loading…
          </p>
        )}
        {data && data.timeline.length === 0 && <p className="text-sm text-muted-foreground">Nothing recorded for this turn.</p>}
        {data && data.timeline.length > 0 && <TimelineList entries={data.timeline} startedAt={data.turn.startedAt} />}
      </DialogContent>
    </Dialog>
  );
}

export function TimelineList({ entries, startedAt }: { entries: TimelineEntry[]; startedAt: string }) {
  const origin = Date.parse(startedAt);
  return (
    <ol className="grid gap-1.5" aria-label="Timeline entries">
      {entries.map((entry, index) => {
        const start = Date.parse(entry.startedAt);
        const duration = entry.endedAt ? Date.parse(entry.endedAt) - start : null;
        const unknown = entry.status === "unknown";
        return (
          <li
            key={`${entry.kind}-${entry.startedAt}-${index}`}
            data-kind={entry.kind}
            data-status={entry.status}
            className={`rounded-md border px-3 py-2 text-sm ${unknown ? "border-warning/60 bg-warning/10" : ""}`}
          >
            <div className="flex flex-wrap items-center gap-2">
              <span className="font-medium">{KIND_LABEL[entry.kind] ?? entry.kind}</span>
              {entry.name && <code className="rounded bg-muted px-1 text-xs">{entry.name}</code>}
              <SandboxLabel sandbox={entry.sandbox} />
              <Badge variant={statusVariant(entry.status)} className="h-auto max-w-full text-xs break-words whitespace-normal">
                {entry.status}
              </Badge>
              <span className="ml-auto text-xs text-muted-foreground tabular-nums">
                +{formatDuration(Math.max(0, start - origin))} · {duration === null ? "running" : formatDuration(duration)}
              </span>
            </div>
            {unknown && (
              <p className="mt-1 flex items-start gap-1.5 text-xs text-warning-foreground">
                <AlertTriangleIcon className="mt-0.5 size-3.5 shrink-0" />
                The outcome is unknown: it may or may not have taken effect. Inspect its effects before retrying.
              </p>
            )}
          </li>
        );
      })}
    </ol>
  );
}
