"use client";

import { ArrowUpIcon, CornerDownRightIcon, ListPlusIcon, Loader2Icon, SquareIcon, ZapIcon } from "lucide-react";
import { useEffect, useId, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { ToggleGroup, ToggleGroupItem } from "@/components/ui/toggle-group";
import { Tooltip, TooltipContent, TooltipTrigger } from "@/components/ui/tooltip";
import { readDraft, writeDraft } from "@/components/shared/drafts";
import { cn } from "@/lib/utils";
import { matchingCommands, parseCommand, type SlashCommandName } from "./slash-commands";

export type SendMode = "steer" | "queue" | "jump";

const MODE_STORAGE_KEY = "atrium:send-mode";

const MODES: Array<{ mode: SendMode; label: string; hint: string; icon: React.ReactNode }> = [
  { mode: "steer", label: "Steer", hint: "Add to the running turn; read before its next model call", icon: <CornerDownRightIcon /> },
  { mode: "queue", label: "Queue", hint: "Wait and start the next turn when this one ends", icon: <ListPlusIcon /> },
  { mode: "jump", label: "Jump", hint: "Interrupt the running turn and handle this next", icon: <ZapIcon /> },
];

interface ComposerProps {
  draftKey: string;
  /** A turn is open: sending offers Steer / Queue / Jump, and Interrupt (Esc) is shown. */
  busy: boolean;
  disabledReason?: string | null;
  placeholder?: string;
  slashCommands?: boolean;
  /** "submit": the text leaves the composer at once (a failure shows Retry elsewhere); "success": it stays until sent. */
  clearOn: "submit" | "success";
  sending?: boolean;
  onSubmit: (text: string, mode: SendMode | "auto") => Promise<boolean>;
  onCommand?: (command: SlashCommandName, argument: string) => void;
  onInterrupt?: () => void;
  interrupting?: boolean;
  toolbar?: React.ReactNode;
  autoFocus?: boolean;
  /** Text put in by the page after mount (e.g. "Edit" on a failed message). */
  injected?: { text: string; nonce: number } | null;
}

export function Composer({
  draftKey,
  busy,
  disabledReason,
  placeholder = "Message Atrium",
  slashCommands = false,
  clearOn,
  sending = false,
  onSubmit,
  onCommand,
  onInterrupt,
  interrupting = false,
  toolbar,
  autoFocus = true,
  injected,
}: ComposerProps) {
  const [text, setText] = useState("");
  const [mode, setMode] = useState<SendMode>("steer");
  const [highlight, setHighlight] = useState(0);
  const [menuDismissed, setMenuDismissed] = useState(false);
  const area = useRef<HTMLTextAreaElement>(null);
  const listId = useId();

  useEffect(() => {
    setText(readDraft(draftKey));
    const storedMode = window.localStorage.getItem(MODE_STORAGE_KEY);
    if (storedMode === "steer" || storedMode === "queue" || storedMode === "jump") setMode(storedMode);
  }, [draftKey]);

  useEffect(() => {
    if (!injected) return;
    setText(injected.text);
    writeDraft(draftKey, injected.text);
    area.current?.focus();
  }, [injected, draftKey]);

  const update = (value: string) => {
    setText(value);
    setMenuDismissed(false);
    setHighlight(0);
    writeDraft(draftKey, value);
  };

  const chooseMode = (value: string) => {
    if (value !== "steer" && value !== "queue" && value !== "jump") return;
    setMode(value);
    window.localStorage.setItem(MODE_STORAGE_KEY, value);
  };

  const commands = slashCommands && !menuDismissed ? matchingCommands(text) : [];
  const menuOpen = commands.length > 0 && parseCommand(text)?.command !== "objective";
  const disabled = Boolean(disabledReason);

  const submit = async (chosen: SendMode | "auto") => {
    const value = text;
    if (value.trim() === "" || disabled || sending) return;
    const command = slashCommands ? parseCommand(value) : null;
    if (command && onCommand) {
      update("");
      onCommand(command.command, command.argument);
      return;
    }
    if (clearOn === "submit") update("");
    const sent = await onSubmit(value, chosen);
    if (sent && clearOn === "success") {
      setText((current) => {
        if (current === value) {
          writeDraft(draftKey, "");
          return "";
        }
        return current;
      });
    }
  };

  const completeCommand = (index: number) => {
    const command = commands[index];
    if (!command) return;
    if (command.takesArgument) {
      update(command.insert);
      area.current?.focus();
      return;
    }
    update("");
    onCommand?.(command.name, "");
  };

  const onKeyDown = (event: React.KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.nativeEvent.isComposing) return;
    if (menuOpen) {
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        const step = event.key === "ArrowDown" ? 1 : -1;
        setHighlight((current) => (current + step + commands.length) % commands.length);
        return;
      }
      if (event.key === "Tab" || (event.key === "Enter" && !event.shiftKey)) {
        event.preventDefault();
        completeCommand(highlight);
        return;
      }
      if (event.key === "Escape") {
        event.preventDefault();
        event.stopPropagation();
        setMenuDismissed(true);
        return;
      }
    }
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      void submit(busy ? mode : "auto");
      return;
    }
    if (event.key === "Escape" && busy && onInterrupt) {
      event.preventDefault();
      onInterrupt();
    }
  };

  const activeMode = MODES.find((candidate) => candidate.mode === mode) ?? MODES[0];

  return (
    <div className="relative">
      {menuOpen && (
        <ul
          id={listId}
          role="listbox"
          aria-label="Commands"
          className="absolute right-0 bottom-full left-0 z-20 mb-2 overflow-hidden rounded-lg border bg-popover p-1 text-popover-foreground shadow-lg"
        >
          {commands.map((command, index) => (
            <li
              key={command.name}
              id={`${listId}-${command.name}`}
              role="option"
              aria-selected={index === highlight}
              className={cn("flex cursor-pointer items-baseline gap-3 rounded-md px-2.5 py-1.5 text-sm", index === highlight && "bg-accent")}
              onMouseEnter={() => setHighlight(index)}
              onMouseDown={(event) => {
                event.preventDefault();
                completeCommand(index);
              }}
            >
              <span className="shrink-0 font-mono text-[13px]">{command.usage}</span>
              <span className="truncate text-xs text-muted-foreground">{command.description}</span>
            </li>
          ))}
        </ul>
      )}
      <form
        className={cn(
          "rounded-2xl border bg-background shadow-sm transition-shadow focus-within:border-ring focus-within:ring-[3px] focus-within:ring-ring/30 dark:bg-input/20",
          disabled && "opacity-70",
        )}
        onSubmit={(event) => {
          event.preventDefault();
          void submit(busy ? mode : "auto");
        }}
      >
        <label htmlFor={`${listId}-input`} className="sr-only">
          Message
        </label>
        <textarea
          id={`${listId}-input`}
          ref={area}
          value={text}
          onChange={(event) => update(event.target.value)}
          onKeyDown={onKeyDown}
          placeholder={disabledReason ?? placeholder}
          disabled={disabled}
          autoFocus={autoFocus}
          rows={1}
          aria-label="Message"
          aria-controls={menuOpen ? listId : undefined}
          aria-activedescendant={menuOpen && commands[highlight] ? `${listId}-${commands[highlight].name}` : undefined}
          aria-autocomplete={slashCommands ? "list" : undefined}
          className="field-sizing-content block max-h-[40vh] min-h-[52px] w-full resize-none bg-transparent px-4 pt-3.5 pb-1 text-[15px] outline-none placeholder:text-muted-foreground disabled:cursor-not-allowed"
        />
        <div className="flex flex-wrap items-center gap-2 px-2 pt-1 pb-2">
          <div className={cn("flex min-w-0 flex-1 flex-wrap items-center gap-1.5", busy && "max-sm:basis-full")}>{toolbar}</div>
          {busy && (
            <ToggleGroup type="single" value={mode} onValueChange={chooseMode} aria-label="While the turn runs" className="max-sm:mr-auto">
              {MODES.map((candidate) => (
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
          )}
          {busy && onInterrupt && (
            <Button type="button" variant="outline" size="sm" className="h-8 rounded-full" onClick={onInterrupt} disabled={interrupting} title="Interrupt (Esc)">
              {interrupting ? <Loader2Icon className="animate-spin" /> : <SquareIcon className="fill-current" />}
              <span className="sr-only sm:not-sr-only">Interrupt</span>
            </Button>
          )}
          <Button
            type="submit"
            size="sm"
            className="h-8 rounded-full"
            disabled={disabled || sending || text.trim() === ""}
            title={busy ? `Send: ${activeMode.hint.toLowerCase()}` : "Send (Enter)"}
          >
            {sending ? <Loader2Icon className="animate-spin" /> : <ArrowUpIcon />}
            <span className="sr-only sm:not-sr-only">Send</span>
          </Button>
        </div>
      </form>
      <p className={cn("mt-1.5 px-2 text-center text-[11px] text-muted-foreground", busy ? "block" : "hidden sm:block")}>
        Enter to {busy ? activeMode.label.toLowerCase() : "send"}
        <span className="hidden sm:inline"> · Shift+Enter for a new line</span>
        {busy ? " · Esc to interrupt" : ""}
        <span className="hidden sm:inline">{slashCommands ? " · / for commands" : ""}</span>
      </p>
    </div>
  );
}
