import { cn } from "@/lib/utils";
import { SidebarTrigger } from "./sidebar-trigger";

/** The top bar of every workspace page; at phone widths it carries the sidebar button. */
export function PageHeader({ title, children, className }: { title?: React.ReactNode; children?: React.ReactNode; className?: string }) {
  return (
    <header role="banner" className={cn("flex h-14 shrink-0 items-center gap-2 border-b bg-background/95 px-3 backdrop-blur md:px-4", className)}>
      <SidebarTrigger />
      {typeof title === "string" ? <h1 className="min-w-0 truncate text-sm font-semibold">{title}</h1> : title}
      {children}
    </header>
  );
}
