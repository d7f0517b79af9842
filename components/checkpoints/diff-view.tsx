"use client";

import { useMemo, useState } from "react";
import { Diff, Hunk, markEdits, parseDiff, tokenize, type FileData, type ViewType } from "react-diff-view";
import { ToggleGroup, ToggleGroupItem } from "@/components/ui/toggle-group";
import { cn } from "@/lib/utils";

/**
 * A diff people read (react-diff-view): per file a header with its path and +/−, then its hunks
 * with old and new line numbers, context lines and word-level marks; unified or side by side.
 * No raw git headers (`index 6309912..b913b81`) are shown.
 */
export function DiffView({ diff, label, className }: { diff: string; label: string; className?: string }) {
  const files = useMemo(() => parseDiff(asGitDiff(diff), { nearbySequences: "zip" }), [diff]);
  const [viewType, setViewType] = useState<ViewType>("unified");
  if (files.length === 0) return null;
  return (
    <div role="group" aria-label={label} className={cn("grid gap-2", className)}>
      <div className="flex items-center justify-end">
        <ToggleGroup type="single" value={viewType} onValueChange={(value) => value && setViewType(value as ViewType)} aria-label="Diff layout" className="max-sm:hidden">
          <ToggleGroupItem value="unified" className="aria-checked:bg-secondary aria-checked:text-foreground">
            Unified
          </ToggleGroupItem>
          <ToggleGroupItem value="split" className="aria-checked:bg-secondary aria-checked:text-foreground">
            Split
          </ToggleGroupItem>
        </ToggleGroup>
      </div>
      {files.map((file) => (
        <FileDiff key={`${file.oldPath}→${file.newPath}`} file={file} viewType={viewType} />
      ))}
    </div>
  );
}

function changeCounts(file: FileData) {
  let additions = 0;
  let deletions = 0;
  for (const hunk of file.hunks) {
    for (const change of hunk.changes) {
      if (change.type === "insert") additions += 1;
      if (change.type === "delete") deletions += 1;
    }
  }
  return { additions, deletions };
}

const STATUS: Record<FileData["type"], string> = { add: "added", delete: "deleted", modify: "modified", rename: "renamed", copy: "copied" };

function FileDiff({ file, viewType }: { file: FileData; viewType: ViewType }) {
  const tokens = useMemo(() => tokenize(file.hunks, { highlight: false, enhancers: [markEdits(file.hunks, { type: "block" })] }), [file.hunks]);
  const path = file.type === "delete" ? file.oldPath : file.newPath;
  const { additions, deletions } = changeCounts(file);
  return (
    <section aria-label={`Changes to ${path}`} className="overflow-hidden rounded-md border" data-file-status={STATUS[file.type]}>
      <header className="flex items-center gap-2 border-b bg-muted/50 px-3 py-1.5 text-xs">
        <span className="min-w-0 flex-1 truncate font-mono">{path}</span>
        <span className="text-muted-foreground">{STATUS[file.type]}</span>
        <span className="hljs-addition font-medium">+{additions}</span>
        <span className="hljs-deletion font-medium">−{deletions}</span>
      </header>
      <div className="max-h-[32rem] overflow-auto">
        <Diff viewType={viewType} diffType={file.type} hunks={file.hunks} tokens={tokens} className="atrium-diff">
          {(hunks) => hunks.map((hunk) => <Hunk key={hunk.content} hunk={hunk} />)}
        </Diff>
      </div>
    </section>
  );
}

/** react-diff-view reads git's format; a plain unified diff (from the `diff` package) gets the `diff --git` line it starts files with. */
function asGitDiff(diff: string): string {
  if (/^diff --git /m.test(diff)) return diff;
  const oldName = /^--- (.+)$/m.exec(diff)?.[1]?.trim() ?? "a/file";
  const newName = /^\+\+\+ (.+)$/m.exec(diff)?.[1]?.trim() ?? "b/file";
  const strip = (name: string) => name.replace(/^[ab]\//, "").split("\t")[0];
  const oldPath = oldName === "/dev/null" ? strip(newName) : strip(oldName);
  const newPath = newName === "/dev/null" ? strip(oldName) : strip(newName);
  const mode = oldName === "/dev/null" ? "new file mode 100644\n" : newName === "/dev/null" ? "deleted file mode 100644\n" : "";
  return `diff --git a/${oldPath} b/${newPath}\n${mode}${diff}`;
}
