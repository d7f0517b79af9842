"use client";

import { MonitorIcon, MoonIcon, SunIcon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { type ThemeChoice, useTheme } from "./theme-provider";

const NEXT: Record<ThemeChoice, ThemeChoice> = { system: "light", light: "dark", dark: "system" };
const LABEL: Record<ThemeChoice, string> = { system: "System theme", light: "Light theme", dark: "Dark theme" };

/** Cycles system → light → dark; the visible label says the current choice, the name also what a press does. */
export function ThemeToggle() {
  const { theme, setTheme } = useTheme();
  const Icon = theme === "dark" ? MoonIcon : theme === "light" ? SunIcon : MonitorIcon;
  return (
    <Button
      variant="ghost"
      size="sm"
      className="text-muted-foreground"
      aria-label={`${LABEL[theme]} (switch to ${LABEL[NEXT[theme]].toLowerCase()})`}
      title={`Switch to ${LABEL[NEXT[theme]].toLowerCase()}`}
      onClick={() => setTheme(NEXT[theme])}
    >
      <Icon />
      <span>{LABEL[theme]}</span>
    </Button>
  );
}
