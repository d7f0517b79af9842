"use client";

import { CornerDownRightIcon, ListPlusIcon, PinIcon, ZapIcon } from "lucide-react";
import { useEffect, useState } from "react";
import { ToggleGroup, ToggleGroupItem } from "@/components/ui/toggle-group";
import { Tooltip, TooltipContent, TooltipTrigger } from "@/components/ui/tooltip";
import { cn } from "@/lib/utils";

/** How a message sent while a turn runs reaches it. */
export type SendMode = "steer" | "queue" | "jump";

/** The browser-wide choice earlier versions kept; a choice now belongs to one conversation. */
const LEGACY_STORAGE_KEY = "atrium:send-mode";
const pinKey = (draftKey: string) => `atrium:send-mode-pin:${draftKey}`;

export const SEND_MODES: Array<{ mode: SendMode; label: string; hint: string; enter: string; icon: React.ReactNode }> = [
  { mode: "steer", label: "Steer", hint: "Add to the running turn; read before its next model call", enter: "Enter to steer into the running turn", icon: <CornerDownRightIcon /> },
  { mode: "queue", label: "Queue", hint: "Wait and start the next turn when this one ends", enter: "Enter to queue after this turn", icon: <ListPlusIcon /> },
  { mode: "jump", label: "Jump", hint: "Interrupt the running turn and handle this next", enter: "Enter to jump: interrupt and run next", icon: <ZapIcon /> },
];

export const DEFAULT_SEND_MODE: SendMode = "steer";

const isSendMode = (value: string | null): value is SendMode => value === "steer" || value === "queue" || value === "jump";

export const sendModeInfo = (mode: SendMode) => SEND_MODES.find((candidate) => candidate.mode === mode) ?? SEND_MODES[0];

/**
 * The send mode of one conversation: Steer unless chosen; a choice lasts for one send unless pinned,
 * and only a pinned choice is remembered (per conversation, in this browser).
 */
export function useSendMode(draftKey: string) {
  const [state, setState] = useState<{ key: string; mode: SendMode; pinned: boolean }>({ key: draftKey, mode: DEFAULT_SEND_MODE, pinned: false });
  useEffect(() => {
    window.localStorage.removeItem(LEGACY_STORAGE_KEY);
    const stored = window.localStorage.getItem(pinKey(draftKey));
    setState(isSendMode(stored) ? { key: draftKey, mode: stored, pinned: true } : { key: draftKey, mode: DEFAULT_SEND_MODE, pinned: false });
  }, [draftKey]);
  const current = state.key === draftKey ? state : { key: draftKey, mode: DEFAULT_SEND_MODE, pinned: false };

  const chooseMode = (value: string) => {
    if (!isSendMode(value)) return;
    if (current.pinned) window.localStorage.setItem(pinKey(draftKey), value);
    setState({ ...current, mode: value });
  };
  const togglePin = () => {
    if (current.pinned) window.localStorage.removeItem(pinKey(draftKey));
    else window.localStorage.setItem(pinKey(draftKey), current.mode);
    setState({ ...current, pinned: !current.pinned });
  };
  /** After a message left in a chosen mode: back to Steer unless the choice is pinned. */
  const afterSend = () => {
    if (!current.pinned) setState({ ...current, mode: DEFAULT_SEND_MODE });
  };
  return { mode: current.mode, pinned: current.pinned, chooseMode, togglePin, afterSend };
}

export type SendModeState = ReturnType<typeof useSendMode>;

/** Steer / Queue / Jump, shown while a turn runs; the chosen one is filled, and a pin keeps it after sending. */
export function SendModeToggle({ sendMode }: { sendMode: SendModeState }) {
  const { mode, pinned, chooseMode, togglePin } = sendMode;
  const label = sendModeInfo(mode).label;
  return (
    <div className="flex items-center gap-0.5 max-sm:mr-auto">
      <ToggleGroup type="single" value={mode} onValueChange={chooseMode} aria-label="While the turn runs">
        {SEND_MODES.map((candidate) => (
          <Tooltip key={candidate.mode}>
            <TooltipTrigger asChild>
              <ToggleGroupItem
                value={candidate.mode}
                aria-label={candidate.label}
                // The tooltip trigger's data-state ("closed") replaces the item's data-state="on", so the selection is styled from aria-checked.
                className="aria-checked:bg-primary aria-checked:text-primary-foreground aria-checked:shadow-xs aria-checked:hover:text-primary-foreground"
              >
                {candidate.icon}
                <span>{candidate.label}</span>
              </ToggleGroupItem>
            </TooltipTrigger>
            <TooltipContent>{candidate.hint}</TooltipContent>
          </Tooltip>
        ))}
      </ToggleGroup>
      <Tooltip>
        <TooltipTrigger asChild>
          <button
            type="button"
            aria-pressed={pinned}
            aria-label={`Keep ${label} for this conversation`}
            onClick={togglePin}
            className={cn(
              "inline-flex size-7 items-center justify-center rounded-md text-muted-foreground outline-none hover:text-foreground focus-visible:ring-[3px] focus-visible:ring-ring/50 [&_svg]:size-3.5",
              pinned && "bg-secondary text-foreground ring-1 ring-border",
            )}
          >
            <PinIcon className={cn(pinned && "fill-current")} />
          </button>
        </TooltipTrigger>
        <TooltipContent>{pinned ? `${label} stays chosen after sending; click to go back to Steer after each send` : `After sending, the choice goes back to Steer; pin to keep ${label}`}</TooltipContent>
      </Tooltip>
    </div>
  );
}
