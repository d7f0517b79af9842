"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";
import { cn } from "@/lib/utils";

/** Longer diffs open collapsed to this many lines. */
const COLLAPSED_LINES = 40;

function lineClass(line: string): string | undefined {
  if (line.startsWith("+++") || line.startsWith("---") || line.startsWith("diff ") || line.startsWith("index ") || line.startsWith("new file") || line.startsWith("deleted file")) return "text-muted-foreground";
  if (line.startsWith("@@")) return "hljs-title";
  if (line.startsWith("+")) return "hljs-addition diff-added";
  if (line.startsWith("-")) return "hljs-deletion diff-removed";
  return undefined;
}

/** A unified diff, coloured with the code-block theme (highlight.js addition/deletion tokens). */
export function DiffView({ diff, label, className }: { diff: string; label: string; className?: string }) {
  const lines = diff.replace(/\n$/, "").split("\n");
  const long = lines.length > COLLAPSED_LINES;
  const [expanded, setExpanded] = useState(false);
  const shown = long && !expanded ? lines.slice(0, COLLAPSED_LINES) : lines;
  return (
    <div className={cn("grid gap-1", className)}>
      <pre aria-label={label} className="max-h-[32rem] overflow-auto rounded-md border bg-muted/40 py-2 font-mono text-xs leading-5">
        {shown.map((line, index) => (
          <div key={index} className={cn("px-3 whitespace-pre", lineClass(line))}>
            {line === "" ? " " : line}
          </div>
        ))}
      </pre>
      {long && (
        <Button type="button" variant="ghost" size="xs" className="justify-self-start text-muted-foreground" onClick={() => setExpanded((value) => !value)}>
          {expanded ? "Show less" : `Show all ${lines.length} lines`}
        </Button>
      )}
    </div>
  );
}
