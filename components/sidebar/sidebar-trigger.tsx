"use client";

import { PanelLeftIcon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { useSidebar } from "./sidebar-context";

/** Opens the sidebar sheet at phone widths; hidden where the sidebar is always shown. */
export function SidebarTrigger() {
  const { openSheet } = useSidebar();
  return (
    <Button variant="ghost" size="icon-sm" className="-ml-1 md:hidden" aria-label="Open sidebar" onClick={openSheet}>
      <PanelLeftIcon />
    </Button>
  );
}
