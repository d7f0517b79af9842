"use client";

import { CpuIcon, GaugeIcon } from "lucide-react";
import type { ModelInfo } from "@/lib/events/entities";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";

export type Effort = "low" | "medium" | "high";

interface ModelPickerProps {
  models: ModelInfo[];
  value: string;
  onChange: (model: string) => void;
  disabled?: boolean;
  size?: "sm" | "default";
}

/** Short marker for the built-in offline model, which is a test double and not an LLM. */
export function modelTag(model: ModelInfo | undefined): string | null {
  if (!model) return null;
  if (model.provider === "offline") return "not an LLM";
  if (!model.available) return "unavailable";
  return null;
}

export function ModelPicker({ models, value, onChange, disabled, size = "sm" }: ModelPickerProps) {
  const known = models.some((model) => model.id === value);
  return (
    <Select value={value} onValueChange={onChange} disabled={disabled}>
      <SelectTrigger size={size} aria-label="Model" className="h-8 max-w-[14rem] gap-1.5 rounded-full border-transparent bg-muted/60 px-3 text-xs shadow-none hover:bg-muted">
        <CpuIcon className="size-3.5" />
        <SelectValue placeholder="Model">
          {value}
          {modelTag(models.find((model) => model.id === value)) && (
            <span className="hidden text-muted-foreground sm:inline">· {modelTag(models.find((model) => model.id === value))}</span>
          )}
        </SelectValue>
      </SelectTrigger>
      <SelectContent align="start">
        {!known && (
          <SelectItem value={value} disabled>
            {value} (not configured here)
          </SelectItem>
        )}
        {models.map((model) => {
          const tag = modelTag(model);
          return (
            <SelectItem key={model.id} value={model.id} disabled={!model.available}>
              {model.id}
              {tag && <span className="text-muted-foreground"> · {tag}</span>}
            </SelectItem>
          );
        })}
      </SelectContent>
    </Select>
  );
}

export function EffortPicker({ value, onChange, disabled }: { value: Effort | null; onChange: (effort: Effort | null) => void; disabled?: boolean }) {
  return (
    <Select value={value ?? "default"} onValueChange={(next) => onChange(next === "default" ? null : (next as Effort))} disabled={disabled}>
      <SelectTrigger size="sm" aria-label="Reasoning effort" className="h-8 gap-1.5 rounded-full border-transparent bg-muted/60 px-3 text-xs shadow-none hover:bg-muted">
        <GaugeIcon className="size-3.5" />
        <SelectValue>{value === null ? "Default effort" : `${value[0].toUpperCase()}${value.slice(1)} effort`}</SelectValue>
      </SelectTrigger>
      <SelectContent align="start">
        <SelectItem value="default">Default effort</SelectItem>
        <SelectItem value="low">Low effort</SelectItem>
        <SelectItem value="medium">Medium effort</SelectItem>
        <SelectItem value="high">High effort</SelectItem>
      </SelectContent>
    </Select>
  );
}
