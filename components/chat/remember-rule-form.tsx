"use client";

import { useId, useState } from "react";
import type { Approval } from "@/lib/events/entities";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";

export interface Remember {
  tool: string;
  commandPrefix?: string;
}

/** Commands whose first word says little alone: their rule starts with two words ("npm test", "git status"). */
const TWO_WORD_COMMANDS = new Set(["npm", "pnpm", "yarn", "npx", "bun", "git", "cargo", "go", "make", "python", "python3", "node", "docker", "kubectl", "uv", "pip"]);

/** The prefix offered for a shell command: its first word, or its first two for tools with subcommands. */
export function suggestedPrefix(command: string): string {
  const words = command.trim().split(/\s+/);
  const [first = "", second] = words;
  if (TWO_WORD_COMMANDS.has(first) && second && !second.startsWith("-") && /^[\w.:@/-]+$/.test(second)) return `${first} ${second}`;
  return first;
}

const commandOf = (approval: Approval) => {
  const command = (approval.input as { command?: unknown } | null)?.command;
  return approval.toolName === "shell" && typeof command === "string" ? command : null;
};

/** What "Always allow in this project" will allow: for shell, commands starting with an editable prefix; else every call of the tool. */
export function RememberRuleForm({ approval, busy, onAllow, onCancel }: { approval: Approval; busy: boolean; onAllow: (remember: Remember) => void; onCancel: () => void }) {
  const inputId = useId();
  const command = commandOf(approval);
  const [prefix, setPrefix] = useState(command ? suggestedPrefix(command) : "");
  const fits = command === null || (prefix.trim() !== "" && command.trim().startsWith(prefix.trim()));
  return (
    <form
      className="grid gap-2 border-t border-warning/30 pt-3 text-sm"
      onSubmit={(event) => {
        event.preventDefault();
        if (fits) onAllow(command ? { tool: approval.toolName, commandPrefix: prefix.trim() } : { tool: approval.toolName });
      }}
    >
      {command ? (
        <>
          <label htmlFor={inputId} className="font-medium">
            Allow shell commands in this project that start with
          </label>
          <Input id={inputId} value={prefix} onChange={(event) => setPrefix(event.target.value)} spellCheck={false} className="h-8 font-mono text-xs" autoFocus />
          <p className="text-xs text-muted-foreground">
            {fits ? "A command that chains others (; && | $( ) …) still asks. The sandbox still confines what runs." : "The prefix must begin this command."}
          </p>
        </>
      ) : (
        <p>
          Allow every <span className="font-mono">{approval.toolName}</span> call in this project without asking. The sandbox still confines what runs.
        </p>
      )}
      <div className="flex justify-end gap-2">
        <Button type="button" size="sm" variant="ghost" onClick={onCancel}>
          Cancel
        </Button>
        <Button type="submit" size="sm" disabled={busy || !fits}>
          Allow and run
        </Button>
      </div>
    </form>
  );
}
