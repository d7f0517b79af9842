"use client";

import { CornerDownRightIcon, ListPlusIcon, ZapIcon } from "lucide-react";
import { useEffect, useState } from "react";
import { ToggleGroup, ToggleGroupItem } from "@/components/ui/toggle-group";
import { Tooltip, TooltipContent, TooltipTrigger } from "@/components/ui/tooltip";

/** How a message sent while a turn runs reaches it. */
export type SendMode = "steer" | "queue" | "jump";

const MODE_STORAGE_KEY = "atrium:send-mode";

export const SEND_MODES: Array<{ mode: SendMode; label: string; hint: string; icon: React.ReactNode }> = [
  { mode: "steer", label: "Steer", hint: "Add to the running turn; read before its next model call", icon: <CornerDownRightIcon /> },
  { mode: "queue", label: "Queue", hint: "Wait and start the next turn when this one ends", icon: <ListPlusIcon /> },
  { mode: "jump", label: "Jump", hint: "Interrupt the running turn and handle this next", icon: <ZapIcon /> },
];

const isSendMode = (value: string | null): value is SendMode => value === "steer" || value === "queue" || value === "jump";

/** The send mode last chosen in this browser, remembered across pages. */
export function useSendMode(draftKey: string) {
  const [mode, setMode] = useState<SendMode>("steer");
  useEffect(() => {
    const stored = window.localStorage.getItem(MODE_STORAGE_KEY);
    if (isSendMode(stored)) setMode(stored);
  }, [draftKey]);
  const chooseMode = (value: string) => {
    if (!isSendMode(value)) return;
    setMode(value);
    window.localStorage.setItem(MODE_STORAGE_KEY, value);
  };
  return { mode, chooseMode };
}

/** Steer / Queue / Jump, shown while a turn runs. */
export function SendModeToggle({ mode, onChange }: { mode: SendMode; onChange: (value: string) => void }) {
  return (
    <ToggleGroup type="single" value={mode} onValueChange={onChange} aria-label="While the turn runs" className="max-sm:mr-auto">
      {SEND_MODES.map((candidate) => (
        <Tooltip key={candidate.mode}>
          <TooltipTrigger asChild>
            <ToggleGroupItem value={candidate.mode} aria-label={candidate.label}>
              {candidate.icon}
              <span>{candidate.label}</span>
            </ToggleGroupItem>
          </TooltipTrigger>
          <TooltipContent>{candidate.hint}</TooltipContent>
        </Tooltip>
      ))}
    </ToggleGroup>
  );
}
