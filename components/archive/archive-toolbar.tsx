"use client";

import { ArchiveRestoreIcon, Loader2Icon, SearchIcon, Trash2Icon, XIcon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import type { ArchiveBulkActions } from "./use-archive-bulk-actions";

interface ArchiveToolbarProps {
  search: string;
  onSearchChange: (value: string) => void;
  models: string[];
  model: string | null;
  onModelChange: (model: string | null) => void;
  selectedIds: string[];
  actions: ArchiveBulkActions;
  onClearSelection: () => void;
}

/** Above the table: search and the model filter, and what to do with the selected rows. */
export function ArchiveToolbar({ search, onSearchChange, models, model, onModelChange, selectedIds, actions, onClearSelection }: ArchiveToolbarProps) {
  return (
    <>
      <div className="flex flex-wrap items-center gap-2">
        <div className="relative min-w-48 flex-1">
          <SearchIcon className="pointer-events-none absolute top-1/2 left-2.5 size-4 -translate-y-1/2 text-muted-foreground" />
          <Input
            type="search"
            value={search}
            onChange={(event) => onSearchChange(event.target.value)}
            placeholder="Search titles and messages"
            aria-label="Search the archive"
            className="pl-8"
          />
        </div>
        <Select value={model ?? "all"} onValueChange={(value) => onModelChange(value === "all" ? null : value)}>
          <SelectTrigger aria-label="Filter by model" className="w-44">
            <SelectValue>{model ?? "All models"}</SelectValue>
          </SelectTrigger>
          <SelectContent>
            <SelectItem value="all">All models</SelectItem>
            {models.map((id) => (
              <SelectItem key={id} value={id}>
                {id}
              </SelectItem>
            ))}
          </SelectContent>
        </Select>
      </div>
      {selectedIds.length > 0 ? (
        <SelectionBar selectedIds={selectedIds} actions={actions} onClearSelection={onClearSelection} />
      ) : (
        // Holds the bar's place, so selecting a row moves nothing below it.
        <p className="flex h-12 items-center px-3 text-sm text-muted-foreground">Select conversations to unarchive or delete them together.</p>
      )}
    </>
  );
}

function SelectionBar({ selectedIds, actions, onClearSelection }: Pick<ArchiveToolbarProps, "selectedIds" | "actions" | "onClearSelection">) {
  const { working } = actions;
  return (
    <div role="toolbar" aria-label="Selected conversations" className="flex min-h-12 flex-wrap items-center gap-2 rounded-lg border bg-muted/50 px-3 py-1.5 text-sm">
      <span className="font-medium">{selectedIds.length} selected</span>
      <div className="ml-auto flex gap-2">
        <Button size="sm" variant="outline" disabled={working !== null} onClick={() => void actions.unarchive(selectedIds)}>
          {working === "unarchive" ? <Loader2Icon className="animate-spin" /> : <ArchiveRestoreIcon />}
          Unarchive
        </Button>
        <Button size="sm" variant="destructive" disabled={working !== null} onClick={() => actions.setConfirmDelete(true)}>
          <Trash2Icon />
          Delete
        </Button>
        <Button size="icon-sm" variant="ghost" aria-label="Clear selection" onClick={onClearSelection}>
          <XIcon />
        </Button>
      </div>
    </div>
  );
}
