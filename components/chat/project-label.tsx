import { FolderIcon } from "lucide-react";
import { folderName } from "@/components/shared/format";

/** The conversation's project in the header: the folder's name, its full path and machine on hover (and to screen readers). */
export function ProjectLabel({ cwd, machine = "local" }: { cwd: string; machine?: string }) {
  return (
    <span
      className="hidden min-w-0 shrink items-center gap-1 rounded-full bg-muted/60 px-2 py-0.5 text-xs text-muted-foreground md:inline-flex"
      title={`${cwd} on ${machine}`}
      aria-label={`Project: ${folderName(cwd)} (${cwd}) on ${machine}`}
      role="note"
    >
      <FolderIcon className="size-3 shrink-0" aria-hidden />
      <span className="truncate">{folderName(cwd)}</span>
      <span className="shrink-0 opacity-70" aria-hidden>
        · {machine}
      </span>
    </span>
  );
}
