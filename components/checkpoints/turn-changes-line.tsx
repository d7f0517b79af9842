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

function fileAnchor(turnId: string, path: string): string {
  return `${turnChangesAnchor(turnId)}-${encodeURIComponent(path)}`;
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
            <li key={file.path} className="flex items-center gap-2">
              <span className="w-3 text-muted-foreground" title={file.status} aria-label={file.status}>
                {STATUS_MARK[file.status]}
              </span>
              {/* Leads to the file's part of the diff below: long turns change many files. */}
              <button
                type="button"
                className="min-w-0 flex-1 truncate rounded-sm text-left hover:underline focus-visible:ring-2 focus-visible:ring-ring/50 focus-visible:outline-none"
                title={`Show the changes to ${file.path}`}
                onClick={() => {
                  const section = document.getElementById(fileAnchor(turnId, file.path));
                  section?.scrollIntoView({ block: "start", behavior: "smooth" });
                  section?.focus({ preventScroll: true });
                }}
              >
                {file.path}
              </button>
              <span className="hljs-addition">+{file.additions}</span>
              <span className="hljs-deletion">−{file.deletions}</span>
            </li>
          ))}
        </ul>
        <DiffView
          fileAnchor={(path) => fileAnchor(turnId, path)}
          diff={changes.diff}
          label="Diff of the turn's changes"
          loadContext={(lines) => apiFetch<TurnChanges>(`/api/turns/${turnId}/changes?context=${lines}`).then((body) => body.diff)}
          fileActions={(path) => <RevertFileButton turnId={turnId} path={path} />}
        />
      </CollapsibleContent>
    </Collapsible>
  );
}
