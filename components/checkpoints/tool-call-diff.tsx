"use client";

import { createTwoFilesPatch } from "diff";
import { FileDiffIcon } from "lucide-react";
import { useEffect, useMemo, useState } from "react";
import { previewToolCall } from "@/app/(workspace)/c/[id]/actions";
import { useOptionalConversationId } from "@/components/chat/conversation-provider";
import type { Item } from "@/lib/events/entities";
import { Button } from "@/components/ui/button";
import { DiffView } from "./diff-view";
import { turnChangesAnchor } from "./turn-changes-line";
import { useTurnChanges } from "./use-turn-changes";

function stringField(input: unknown, name: string): string | null {
  if (typeof input !== "object" || input === null) return null;
  const value = (input as Record<string, unknown>)[name];
  return typeof value === "string" ? value : null;
}

/**
 * The unified diff of one write_file or edit_file call: once it ran, from the checkpoints around
 * it (the file's real lines); before that (waiting for approval), or without checkpoints, from
 * its input with the `diff` package.
 */
export function ToolCallDiff({ item }: { item: Item }) {
  const name = item.toolName;
  const filePath = stringField(item.input, "path") ?? "file";
  const ended = item.status === "completed" || item.status === "failed";
  const recorded = useTurnChanges(item.turnId, ended, item.id);
  const fromInput = useMemo(() => {
    if (name === "edit_file") {
      const old = stringField(item.input, "old");
      const replacement = stringField(item.input, "new");
      if (old === null || replacement === null) return null;
      return createTwoFilesPatch(`a/${filePath}`, `b/${filePath}`, withNewline(old), withNewline(replacement), undefined, undefined, { context: 3 });
    }
    if (name === "write_file") {
      const content = stringField(item.input, "content");
      return content === null ? null : createTwoFilesPatch("/dev/null", `b/${filePath}`, "", withNewline(content));
    }
    return null;
  }, [name, item.input, filePath]);
  const preview = usePendingPreview(item);
  const diff = recorded && recorded.diff !== "" ? recorded.diff : item.status === "waiting" ? (preview === undefined ? null : (preview ?? fromInput)) : fromInput;
  if (!diff) return null;
  return <DiffView diff={stripIndexLine(diff)} label={`Diff of ${filePath}`} />;
}

/**
 * A call still waiting (for approval) shows what it would do to the file as it is now, with real
 * line numbers, asked of the server; undefined while it answers, null when it cannot say.
 */
function usePendingPreview(item: Item): string | null | undefined {
  const conversationId = useOptionalConversationId();
  const [preview, setPreview] = useState<{ key: string; diff: string | null } | null>(null);
  const key = `${item.id}:${item.status}`;
  const waiting = item.status === "waiting" && conversationId !== null;
  useEffect(() => {
    if (!waiting || !conversationId) return;
    let current = true;
    previewToolCall(conversationId, item.id).then(
      (diff) => current && setPreview({ key, diff }),
      () => current && setPreview({ key, diff: null }),
    );
    return () => {
      current = false;
    };
  }, [waiting, conversationId, item.id, key]);
  if (!waiting) return null;
  return preview?.key === key ? preview.diff : undefined;
}

/** Under a shell call that changed files: which ones, and a link to the turn's changes. */
export function ShellChangesLink({ item }: { item: Item }) {
  const ended = item.status !== "streaming" && item.status !== "waiting";
  const changes = useTurnChanges(item.turnId, ended);
  const paths = changes?.items?.find((entry) => entry.itemId === item.id)?.paths ?? [];
  if (!item.turnId || paths.length === 0) return null;
  const turnId = item.turnId;
  const show = () => {
    const target = document.getElementById(turnChangesAnchor(turnId));
    if (!target) return;
    target.scrollIntoView({ block: "center" });
    const trigger = target.querySelector<HTMLButtonElement>("button[data-state=closed]");
    trigger?.click();
  };
  return (
    <Button type="button" variant="ghost" size="xs" className="justify-self-start text-muted-foreground" onClick={show}>
      <FileDiffIcon />
      Changed {paths.length} {paths.length === 1 ? "file" : "files"}: see the turn&apos;s changes
    </Button>
  );
}

function withNewline(text: string): string {
  return text.endsWith("\n") || text === "" ? text : `${text}\n`;
}

function stripIndexLine(diff: string): string {
  return diff.replace(/^=+\n/m, "");
}
