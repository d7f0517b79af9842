"use client";

import { useEffect, useRef, useState } from "react";
import { Input } from "@/components/ui/input";

interface ConversationTitleProps {
  title: string;
  editing: boolean;
  onEditingChange: (editing: boolean) => void;
  onSave: (title: string) => Promise<boolean>;
}

/** The header title; Rename turns it into an input (Enter saves, Esc cancels). */
export function ConversationTitle({ title, editing, onEditingChange, onSave }: ConversationTitleProps) {
  const [value, setValue] = useState(title);
  const input = useRef<HTMLInputElement>(null);
  const saving = useRef(false);

  useEffect(() => {
    if (editing) {
      setValue(title);
      requestAnimationFrame(() => input.current?.select());
    }
  }, [editing, title]);

  const commit = async () => {
    if (saving.current) return;
    const next = value.trim();
    if (next === "" || next === title) {
      onEditingChange(false);
      return;
    }
    saving.current = true;
    const saved = await onSave(next);
    saving.current = false;
    if (saved) onEditingChange(false);
  };

  if (!editing) {
    return (
      <h1 className="min-w-0 truncate text-sm font-semibold" onDoubleClick={() => onEditingChange(true)} title={title}>
        {title}
      </h1>
    );
  }
  return (
    <form
      className="min-w-0 flex-1"
      onSubmit={(event) => {
        event.preventDefault();
        void commit();
      }}
    >
      <Input
        ref={input}
        value={value}
        maxLength={200}
        aria-label="Conversation title"
        className="h-8 max-w-md text-sm font-semibold"
        onChange={(event) => setValue(event.target.value)}
        onBlur={() => void commit()}
        onKeyDown={(event) => {
          if (event.key === "Escape") {
            event.preventDefault();
            event.stopPropagation();
            onEditingChange(false);
          }
        }}
      />
    </form>
  );
}
