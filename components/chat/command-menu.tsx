"use client";

import { cn } from "@/lib/utils";
import type { SlashCommand } from "./slash-commands";

interface CommandMenuProps {
  /** The listbox's id; each option's id is `${id}-${name}`, for the textarea's aria-activedescendant. */
  id: string;
  commands: SlashCommand[];
  highlight: number;
  onHighlight: (index: number) => void;
  onChoose: (index: number) => void;
}

/** The slash commands matching what is typed, above the composer. */
export function CommandMenu({ id, commands, highlight, onHighlight, onChoose }: CommandMenuProps) {
  return (
    <ul
      id={id}
      role="listbox"
      aria-label="Commands"
      className="absolute right-0 bottom-full left-0 z-20 mb-2 overflow-hidden rounded-lg border bg-popover p-1 text-popover-foreground shadow-lg"
    >
      {commands.map((command, index) => (
        <li
          key={command.name}
          id={`${id}-${command.name}`}
          role="option"
          aria-selected={index === highlight}
          className={cn("flex cursor-pointer items-baseline gap-3 rounded-md px-2.5 py-1.5 text-sm", index === highlight && "bg-accent")}
          onMouseEnter={() => onHighlight(index)}
          onMouseDown={(event) => {
            // Before the textarea loses focus.
            event.preventDefault();
            onChoose(index);
          }}
        >
          <span className="shrink-0 font-mono text-[13px]">{command.usage}</span>
          <span className="truncate text-xs text-muted-foreground">{command.description}</span>
        </li>
      ))}
    </ul>
  );
}
