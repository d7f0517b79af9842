"use client";

import { FoldVerticalIcon, Loader2Icon, UnfoldVerticalIcon } from "lucide-react";
import { useMemo, useState } from "react";
import { Diff, Hunk, markEdits, parseDiff, tokenize, type FileData, type ViewType } from "react-diff-view";
import { Button } from "@/components/ui/button";
import { ToggleGroup, ToggleGroupItem } from "@/components/ui/toggle-group";
import { cn } from "@/lib/utils";

/**
 * A diff people read (react-diff-view): per file a header with its path and +/−, then its hunks
 * with old and new line numbers, context lines and word-level marks; unified or side by side.
 * No raw git headers (`index 6309912..b913b81`) are shown.
 */
export interface DiffViewProps {
  diff: string;
  label: string;
  className?: string;
  /** The same diff with `lines` of context around each change (the turn's changes with ?context=): offers "More context". */
  loadContext?: (lines: number) => Promise<string>;
  /** Buttons in a file's header (e.g. Revert to before this turn). */
  fileActions?: (path: string) => React.ReactNode;
  /** The element id of a file's section, so a file list can lead to it. */
  fileAnchor?: (path: string) => string;
}

export function DiffView({ diff, label, className, loadContext, fileActions, fileAnchor }: DiffViewProps) {
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
        <FileDiff key={`${file.oldPath}→${file.newPath}`} file={file} viewType={viewType} loadContext={loadContext} actions={fileActions?.(pathOf(file))} anchor={fileAnchor?.(pathOf(file))} />
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

/**
 * The file's path as the turn's changes name it. Git ends a `---`/`+++` name holding a space with
 * a tab, and C-quotes one holding a quote or a control character ("a\"b.txt"); the parser keeps both.
 */
export function pathOf(file: FileData): string {
  return plainGitPath(file.type === "delete" ? file.oldPath : file.newPath);
}

function plainGitPath(raw: string): string {
  const name = raw.replace(/\t$/, "");
  if (!(name.length >= 2 && name.startsWith('"') && name.endsWith('"'))) return name;
  try {
    // Git's C quoting (\", \\, \t, \n, and octal UTF-8 bytes for anything else) reads as JSON once the octal bytes are \u escapes.
    const octal = /\\[0-7]{3}/.test(name);
    const text = JSON.parse(`"${name.slice(1, -1).replace(/\\([0-7]{3})/g, (_, digits: string) => `\\u${Number.parseInt(digits, 8).toString(16).padStart(4, "0")}`)}"`) as string;
    return octal ? new TextDecoder().decode(Uint8Array.from(text, (char) => char.charCodeAt(0) & 0xff)) : text;
  } catch {
    return name;
  }
}

/** Steps of "More context": git's default 3 lines, then 20, then the whole file. */
const CONTEXT_STEPS = [3, 20, 1_000_000];

/** A file's diff with more lines of context around each change, read again from the turn's changes. */
function useWiderContext(file: FileData, loadContext: DiffViewProps["loadContext"]) {
  const [step, setStep] = useState(0);
  const [wide, setWide] = useState<FileData | null>(null);
  const [loading, setLoading] = useState(false);
  const [failed, setFailed] = useState(false);
  const more = async () => {
    const next = step + 1;
    if (!loadContext || next >= CONTEXT_STEPS.length) return;
    setLoading(true);
    setFailed(false);
    try {
      const files = parseDiff(asGitDiff(await loadContext(CONTEXT_STEPS[next])), { nearbySequences: "zip" });
      const found = files.find((candidate) => pathOf(candidate) === pathOf(file));
      if (found) {
        setWide(found);
        setStep(next);
      }
    } catch {
      setFailed(true);
    } finally {
      setLoading(false);
    }
  };
  const less = () => {
    setWide(null);
    setStep(0);
  };
  return { shown: wide ?? file, step, loading, failed, more, less, last: step === CONTEXT_STEPS.length - 1 };
}

function ContextButton({ context, path }: { context: ReturnType<typeof useWiderContext>; path: string }) {
  if (context.last) {
    return (
      <Button type="button" variant="ghost" size="xs" className="h-6 gap-1 px-1.5 text-xs" onClick={context.less} aria-label={`Show less context in ${path}`}>
        <FoldVerticalIcon className="size-3.5" />
        <span className="max-sm:sr-only">Less context</span>
      </Button>
    );
  }
  const label = context.step === 0 ? "Show 20 lines of context" : "Show the whole file";
  return (
    <Button type="button" variant="ghost" size="xs" className="h-6 gap-1 px-1.5 text-xs" disabled={context.loading} onClick={() => void context.more()} aria-label={`${label} of ${path}`} title={context.failed ? "Could not load more context; try again" : label}>
      {context.loading ? <Loader2Icon className="size-3.5 animate-spin" /> : <UnfoldVerticalIcon className="size-3.5" />}
      <span className="max-sm:sr-only">{context.step === 0 ? "More context" : "Whole file"}</span>
    </Button>
  );
}

function FileDiff({ file: given, viewType, loadContext, actions, anchor }: { file: FileData; viewType: ViewType; loadContext: DiffViewProps["loadContext"]; actions: React.ReactNode; anchor?: string }) {
  const context = useWiderContext(given, loadContext);
  const file = context.shown;
  const tokens = useMemo(() => tokenize(file.hunks, { highlight: false, enhancers: [markEdits(file.hunks, { type: "block" })] }), [file.hunks]);
  const path = pathOf(file);
  const { additions, deletions } = changeCounts(given);
  return (
    <section id={anchor} tabIndex={anchor ? -1 : undefined} aria-label={`Changes to ${path}`} className="scroll-mt-2 overflow-hidden rounded-md border outline-none focus-visible:ring-2 focus-visible:ring-ring/50" data-file-status={STATUS[file.type]}>
      <header className="flex items-center gap-2 border-b bg-muted/50 px-3 py-1.5 text-xs">
        <span className="min-w-0 flex-1 truncate font-mono">{path}</span>
        <span className="text-muted-foreground">{STATUS[file.type]}</span>
        <span className="hljs-addition font-medium">+{additions}</span>
        <span className="hljs-deletion font-medium">−{deletions}</span>
        {loadContext && file.type === "modify" && <ContextButton context={context} path={path} />}
        {actions}
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
