"use client";

import { useState } from "react";
import { matchingCommands, parseCommand } from "./slash-commands";

/** The slash-command menu over the composer's text: which commands match, which is highlighted, and Esc to dismiss it. */
export function useCommandMenu(text: string, enabled: boolean) {
  const [highlight, setHighlight] = useState(0);
  const [dismissed, setDismissed] = useState(false);
  const commands = enabled && !dismissed ? matchingCommands(text) : [];
  const open = commands.length > 0 && parseCommand(text)?.command !== "objective";

  /** The text changed: the menu shows again, from its first command. */
  const reset = () => {
    setDismissed(false);
    setHighlight(0);
  };
  const move = (step: 1 | -1) => setHighlight((current) => (current + step + commands.length) % commands.length);

  return { commands, open, highlight, setHighlight, move, reset, dismiss: () => setDismissed(true) };
}

export type CommandMenuState = ReturnType<typeof useCommandMenu>;
