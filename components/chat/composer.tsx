"use client";

import { ArrowUpIcon, Loader2Icon, SquareIcon } from "lucide-react";
import { useId, useRef } from "react";
import { Button } from "@/components/ui/button";
import { cn } from "@/lib/utils";
import { CommandMenu } from "./command-menu";
import { SendModeToggle, sendModeInfo, useSendMode, type SendMode, type SendModeState } from "./send-mode";
import { parseCommand, type SlashCommandName } from "./slash-commands";
import { useCommandMenu, type CommandMenuState } from "./use-command-menu";
import { useComposerDraft } from "./use-composer-draft";

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

interface KeyHandlers {
  menu: CommandMenuState;
  busy: boolean;
  complete: (index: number) => void;
  send: () => void;
  onInterrupt?: () => void;
}

/** While the menu is open, arrows move in it, Tab or Enter completes and Esc dismisses it; else Enter sends and Esc interrupts. */
function handleKeyDown(event: React.KeyboardEvent<HTMLTextAreaElement>, { menu, busy, complete, send, onInterrupt }: KeyHandlers) {
  if (event.nativeEvent.isComposing) return;
  if (menu.open) {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      menu.move(event.key === "ArrowDown" ? 1 : -1);
      return;
    }
    if (event.key === "Tab" || (event.key === "Enter" && !event.shiftKey)) {
      event.preventDefault();
      complete(menu.highlight);
      return;
    }
    if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      menu.dismiss();
      return;
    }
  }
  if (event.key === "Enter" && !event.shiftKey) {
    event.preventDefault();
    send();
    return;
  }
  if (event.key === "Escape" && busy && onInterrupt) {
    event.preventDefault();
    onInterrupt();
  }
}

export function Composer(props: ComposerProps) {
  const { draftKey, busy, disabledReason, placeholder = "Message Atrium", slashCommands = false, clearOn, sending = false, onSubmit, onCommand } = props;
  const area = useRef<HTMLTextAreaElement>(null);
  const listId = useId();
  const draft = useComposerDraft(draftKey, props.injected, area);
  const { text } = draft;
  const sendMode = useSendMode(draftKey);
  const { mode } = sendMode;
  const menu = useCommandMenu(text, slashCommands);
  const disabled = Boolean(disabledReason);

  const update = (value: string) => {
    draft.write(value);
    menu.reset();
  };

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
    if (chosen !== "auto") sendMode.afterSend();
    const sent = await onSubmit(value, chosen);
    if (sent && clearOn === "success") draft.clearIfUnchanged(value);
  };
  const send = () => void submit(busy ? mode : "auto");

  const complete = (index: number) => {
    const command = menu.commands[index];
    if (!command) return;
    if (command.takesArgument) {
      update(command.insert);
      area.current?.focus();
      return;
    }
    update("");
    onCommand?.(command.name, "");
  };

  return (
    <div className="relative">
      {menu.open && <CommandMenu id={listId} commands={menu.commands} highlight={menu.highlight} onHighlight={menu.setHighlight} onChoose={complete} />}
      <form
        className={cn(
          "rounded-2xl border bg-background shadow-sm transition-shadow focus-within:border-ring focus-within:ring-[3px] focus-within:ring-ring/30 dark:bg-input/20",
          disabled && "opacity-70",
        )}
        onSubmit={(event) => {
          event.preventDefault();
          send();
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
          onKeyDown={(event) => handleKeyDown(event, { menu, busy, complete, send, onInterrupt: props.onInterrupt })}
          placeholder={disabledReason ?? placeholder}
          disabled={disabled}
          autoFocus={props.autoFocus ?? true}
          rows={1}
          aria-label="Message"
          aria-controls={menu.open ? listId : undefined}
          aria-activedescendant={menu.open && menu.commands[menu.highlight] ? `${listId}-${menu.commands[menu.highlight].name}` : undefined}
          aria-autocomplete={slashCommands ? "list" : undefined}
          className="field-sizing-content block max-h-[40vh] min-h-[52px] w-full resize-none bg-transparent px-4 pt-3.5 pb-1 text-[15px] outline-none placeholder:text-muted-foreground disabled:cursor-not-allowed"
        />
        <ComposerActions {...props} sendMode={sendMode} sendDisabled={disabled || sending || text.trim() === ""} />
      </form>
      <ComposerHint busy={busy} mode={mode} slashCommands={slashCommands} />
    </div>
  );
}

function ComposerActions({
  busy,
  toolbar,
  onInterrupt,
  interrupting = false,
  sending = false,
  sendMode,
  sendDisabled,
}: ComposerProps & { sendMode: SendModeState; sendDisabled: boolean }) {
  const active = sendModeInfo(sendMode.mode);
  return (
    <div className="flex flex-wrap items-center gap-2 px-2 pt-1 pb-2">
      <div className={cn("flex min-w-0 flex-1 flex-wrap items-center gap-1.5", busy && "max-sm:basis-full")}>{toolbar}</div>
      {busy && <SendModeToggle sendMode={sendMode} />}
      {busy && onInterrupt && (
        <Button type="button" variant="outline" size="sm" className="h-8 rounded-full" onClick={onInterrupt} disabled={interrupting} title="Interrupt (Esc)">
          {interrupting ? <Loader2Icon className="animate-spin" /> : <SquareIcon className="fill-current" />}
          <span className="sr-only sm:not-sr-only">Interrupt</span>
        </Button>
      )}
      <Button type="submit" size="sm" className="h-8 rounded-full" disabled={sendDisabled} title={busy ? `${active.label}: ${active.hint.toLowerCase()} (Enter)` : "Send (Enter)"}
        aria-label={busy ? `Send: ${active.label}` : "Send"}
      >
        {sending ? <Loader2Icon className="animate-spin" /> : busy ? active.icon : <ArrowUpIcon />}
        <span className="sr-only sm:not-sr-only">{busy ? active.label : "Send"}</span>
      </Button>
    </div>
  );
}

function ComposerHint({ busy, mode, slashCommands }: { busy: boolean; mode: SendMode; slashCommands: boolean }) {
  return (
    <p className={cn("mt-1.5 px-2 text-center text-[11px] text-muted-foreground", busy ? "block" : "hidden sm:block")}>
      {busy ? sendModeInfo(mode).enter : "Enter to send"}
      <span className="hidden sm:inline"> · Shift+Enter for a new line</span>
      {busy ? " · Esc to interrupt" : ""}
      <span className="hidden sm:inline">{slashCommands ? " · / for commands" : ""}</span>
    </p>
  );
}
