"use client";

import { createContext, useContext } from "react";

interface SidebarContextValue {
  openSheet: () => void;
}

export const SidebarContext = createContext<SidebarContextValue>({ openSheet: () => {} });

export function useSidebar(): SidebarContextValue {
  return useContext(SidebarContext);
}
