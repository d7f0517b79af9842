"use client";

import {
  AlertTriangleIcon,
  CheckCircle2Icon,
  ChevronRightIcon,
  FileTextIcon,
  Loader2Icon,
  MessageCircleQuestionIcon,
  PencilIcon,
  TerminalIcon,
  UsersIcon,
  WrenchIcon,
} from "lucide-react";
import { useEffect, useState } from "react";
import type { Approval, Item, Question } from "@/lib/events/entities";
import { Badge } from "@/components/ui/badge";
import { Collapsible, CollapsibleContent, CollapsibleTrigger } from "@/components/ui/collapsible";
import { describeToolInput } from "@/components/shared/format";
import { cn } from "@/lib/utils";
import { ShellChangesLink, ToolCallDiff } from "@/components/checkpoints/tool-call-diff";
import { ApprovalPrompt } from "./approval-prompt";
import { AllowRuleLabel } from "./allow-rule-label";
import { SandboxLabel } from "@/components/shared/sandbox-label";
import { ItemStatusBadge } from "./item-status-badge";
import { QuestionPrompt } from "./question-prompt";

function ToolIcon({ name }: { name: string }) {
  if (name === "shell") return <TerminalIcon />;
  if (name === "read_file" || name === "list_dir" || name === "read_artifact") return <FileTextIcon />;
  if (name === "write_file" || name === "edit_file") return <PencilIcon />;
  if (name === "ask_user") return <MessageCircleQuestionIcon />;
  if (name.includes("agent")) return <UsersIcon />;
  return <WrenchIcon />;
}

interface ToolCallCardProps {
  item: Item;
  approval: Approval | undefined;
  question: Question | undefined;
  /** A find match is in the output: open to show it. */
  revealed?: boolean;
}

export function ToolCallCard({ item, approval, question, revealed = false }: ToolCallCardProps) {
  const name = item.toolName ?? "tool";
  const running = item.status === "streaming";
  const needsOwner = approval !== undefined || question !== undefined;
  const editsFile = name === "write_file" || name === "edit_file";
  // File edits open on their diff (DESIGN §9: "file edits show as diffs").
  const [open, setOpen] = useState(running || editsFile);
  useEffect(() => {
    if (running || revealed) setOpen(true);
  }, [running, revealed]);
  const summary = describeToolInput(name, item.input);
  const showInput = name !== "shell" && name !== "ask_user" && !editsFile && item.input !== undefined;
  const hasOutput = (item.output ?? "") !== "";

  return (
    <div className="grid gap-2" data-item-kind="tool_call" data-status={item.status}>
      <Collapsible open={open} onOpenChange={setOpen} className="group/tool overflow-hidden rounded-lg border bg-card">
        <CollapsibleTrigger
          className="flex w-full items-center gap-2 px-3 py-2 text-left text-sm transition-colors hover:bg-accent/50 [&_svg]:size-4"
          aria-label={`${name}${summary ? `: ${summary}` : ""}`}
        >
          <span className="text-muted-foreground">
            <ToolIcon name={name} />
          </span>
          <span className="shrink-0 font-medium">{name}</span>
          {summary && <code className="min-w-0 flex-1 truncate font-mono text-xs text-muted-foreground">{summary}</code>}
          {!summary && <span className="flex-1" />}
          {running && <Loader2Icon className="shrink-0 animate-spin text-muted-foreground" aria-label="Running" />}
          {item.status === "waiting" && !needsOwner && <span className="shrink-0 text-xs text-muted-foreground">queued</span>}
          {item.status === "completed" && (
            <span className="flex shrink-0 items-center gap-1 text-xs text-muted-foreground">
              {typeof item.exitCode === "number" && item.exitCode !== 0 ? (
                <Badge variant="destructive">exit {item.exitCode}</Badge>
              ) : (
                <CheckCircle2Icon className="text-success" aria-label="Completed" />
              )}
            </span>
          )}
          <AllowRuleLabel allowedBy={item.allowedBy} />
          <SandboxLabel sandbox={item.sandbox} />
          <ItemStatusBadge status={item.status} />
          <ChevronRightIcon className="shrink-0 text-muted-foreground transition-transform group-data-[state=open]/tool:rotate-90" />
        </CollapsibleTrigger>
        <CollapsibleContent>
          <div className="grid gap-2 border-t bg-muted/30 px-3 py-2">
            {editsFile && <ToolCallDiff item={item} />}
            {showInput && (
              <pre className="max-h-48 overflow-auto font-mono text-[13px] leading-relaxed whitespace-pre-wrap text-muted-foreground">
                {JSON.stringify(item.input, null, 2)}
              </pre>
            )}
            {hasOutput ? (
              <pre aria-label={`${name} output`} data-find-text="" className={cn("max-h-96 overflow-auto font-mono text-[13px] leading-relaxed whitespace-pre-wrap", running && "text-foreground")}>
                {item.output}
              </pre>
            ) : (
              <p className="text-xs text-muted-foreground">{running ? "Waiting for output…" : item.status === "waiting" ? "Not run yet." : "No output."}</p>
            )}
            {item.artifactId && <p className="text-xs text-muted-foreground">The full output is stored as artifact {item.artifactId}; this is a preview.</p>}
          </div>
        </CollapsibleContent>
      </Collapsible>
      {name === "shell" && <ShellChangesLink item={item} />}
      {item.status === "unknown" && (
        <p role="note" className="flex items-start gap-2 rounded-md border border-warning/50 bg-warning/10 px-3 py-2 text-xs">
          <AlertTriangleIcon className="mt-0.5 size-3.5 shrink-0 text-warning-foreground" />
          This tool call had started when Atrium stopped: it may or may not have taken effect. It was not run again.
        </p>
      )}
      {approval && <ApprovalPrompt approval={approval} />}
      {question && <QuestionPrompt question={question} />}
      {name === "ask_user" && !question && item.status === "completed" && item.output !== undefined && (
        <p className="pl-1 text-xs text-muted-foreground">
          You answered: <span className="font-medium text-foreground">{item.output}</span>
        </p>
      )}
    </div>
  );
}
