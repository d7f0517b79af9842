"use client";

import { useRef } from "react";
import { clampWidth, SIDEBAR_WIDTH } from "./sidebar-prefs";

const STEP = 16;
const BIG_STEP = 64;

interface SidebarResizeHandleProps {
  width: number;
  onResize: (width: number) => void;
  /** The drag or key press is over: remember the width. */
  onCommit: (width: number) => void;
}

/**
 * The sidebar's right edge: drag it, or focus it and use the arrow keys (Shift for bigger
 * steps), Home and End; a double click or Enter puts the default width back.
 */
export function SidebarResizeHandle({ width, onResize, onCommit }: SidebarResizeHandleProps) {
  const drag = useRef<{ startX: number; startWidth: number; last: number } | null>(null);
  const set = (next: number) => {
    const clamped = clampWidth(next);
    onResize(clamped);
    onCommit(clamped);
  };

  return (
    <div
      role="separator"
      aria-orientation="vertical"
      aria-label="Resize sidebar"
      aria-valuemin={SIDEBAR_WIDTH.min}
      aria-valuemax={SIDEBAR_WIDTH.max}
      aria-valuenow={width}
      tabIndex={0}
      title="Drag to resize; double-click for the default width"
      className="group/handle absolute inset-y-0 -right-1.5 z-20 w-3 cursor-col-resize touch-none outline-none"
      onPointerDown={(event) => {
        if (event.button !== 0) return;
        event.preventDefault();
        event.currentTarget.setPointerCapture(event.pointerId);
        drag.current = { startX: event.clientX, startWidth: width, last: width };
      }}
      onPointerMove={(event) => {
        if (!drag.current) return;
        const next = clampWidth(drag.current.startWidth + event.clientX - drag.current.startX);
        drag.current.last = next;
        onResize(next);
      }}
      onPointerUp={() => {
        if (drag.current) onCommit(drag.current.last);
        drag.current = null;
      }}
      onPointerCancel={() => {
        if (drag.current) onCommit(drag.current.last);
        drag.current = null;
      }}
      onDoubleClick={() => set(SIDEBAR_WIDTH.default)}
      onKeyDown={(event) => {
        const step = event.shiftKey ? BIG_STEP : STEP;
        const next =
          event.key === "ArrowLeft" ? width - step
          : event.key === "ArrowRight" ? width + step
          : event.key === "Home" ? SIDEBAR_WIDTH.min
          : event.key === "End" ? SIDEBAR_WIDTH.max
          : event.key === "Enter" ? SIDEBAR_WIDTH.default
          : null;
        if (next === null) return;
        event.preventDefault();
        set(next);
      }}
    >
      <span className="absolute inset-y-0 left-1/2 w-0.5 -translate-x-1/2 bg-transparent transition-colors group-hover/handle:bg-ring/60 group-focus-visible/handle:bg-ring" />
    </div>
  );
}
