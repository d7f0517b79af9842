"use client";

import { useEffect } from "react";

/** Marks the document once React has hydrated it, so tests and scripts can tell when controls respond. */
export function HydrationMarker() {
  useEffect(() => {
    document.documentElement.dataset.hydrated = "true";
  }, []);
  return null;
}
