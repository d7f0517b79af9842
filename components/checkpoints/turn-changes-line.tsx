"use client";

import { ChevronRightIcon, FileDiffIcon } from "lucide-react";
import { Collapsible, CollapsibleContent, CollapsibleTrigger } from "@/components/ui/collapsible";
import { apiFetch } from "@/components/shared/api-client";
import { DiffView } from "./diff-view";
import { RevertFileButton } from "./revert-file-button";
import { totals, useTurnChanges, type ChangedFile, type TurnChanges } from "./use-turn-changes";

const STATUS_MARK: Record<ChangedFile["status"], string> = { added: "A", modified: "M", deleted: "D" };

export function turnChangesAnchor(turnId: string): string {
  return `changes-${turnId}`;
}

/** "N files changed +a −d" under a turn that changed files, expandable to the file list and the diff. */
export function TurnChangesLine({ turnId }: { turnId: string }) {
  const changes = useTurnChanges(turnId, true);
  if (!changes || changes.files.length === 0) return null;
  const { additions, deletions } = totals(changes.files);
  const count = changes.files.length;
  const label = `${count} ${count === 1 ? "file" : "files"} changed +${additions} −${deletions}`;
  return (
    <Collapsible id={turnChangesAnchor(turnId)} className="group/changes rounded-lg border border-dashed" data-turn-changes={turnId}>
      <CollapsibleTrigger className="flex w-full items-center gap-2 px-3 py-1.5 text-left text-xs text-muted-foreground hover:bg-accent/50" aria-label={label}>
        <FileDiffIcon className="size-3.5 shrink-0" />
        <span>
          {count} {count === 1 ? "file" : "files"} changed <span className="hljs-addition font-medium">+{additions}</span>{" "}
          <span className="hljs-deletion font-medium">−{deletions}</span>
        </span>
        <ChevronRightIcon className="ml-auto size-3.5 transition-transform group-data-[state=open]/changes:rotate-90" />
      </CollapsibleTrigger>
      <CollapsibleContent className="grid gap-2 border-t px-3 py-2">
        <ul aria-label="Changed files" className="grid gap-0.5 font-mono text-xs">
          {changes.files.map((file) => (
            <li key={file.path} className="flex gap-2">
              <span className="w-3 text-muted-foreground" title={file.status}>
                {STATUS_MARK[file.status]}
              </span>
              <span className="min-w-0 flex-1 truncate">{file.path}</span>
              <span className="hljs-addition">+{file.additions}</span>
              <span className="hljs-deletion">−{file.deletions}</span>
            </li>
          ))}
        </ul>
        <DiffView
          diff={changes.diff}
          label="Diff of the turn's changes"
          loadContext={(lines) => apiFetch<TurnChanges>(`/api/turns/${turnId}/changes?context=${lines}`).then((body) => body.diff)}
          fileActions={(path) => <RevertFileButton turnId={turnId} path={path} />}
        />
      </CollapsibleContent>
    </Collapsible>
  );
}
