"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { cn } from "@/lib/utils";

const SECTIONS = [
  { href: "/settings", label: "General" },
  { href: "/settings/models", label: "Models" },
  { href: "/settings/agents", label: "Agents" },
  { href: "/settings/tools", label: "Tools" },
  { href: "/settings/machines", label: "Machines" },
  { href: "/settings/cluster", label: "Cluster" },
  { href: "/settings/approvals", label: "Approvals" },
];

/** The sections of Settings, as tabs under the page header. */
export function SettingsNav() {
  const pathname = usePathname();
  return (
    <nav aria-label="Settings sections" className="flex shrink-0 flex-wrap gap-x-1 border-b px-3 md:px-4">
      {SECTIONS.map((section) => {
        const active = pathname === section.href;
        return (
          <Link
            key={section.href}
            href={section.href}
            aria-current={active ? "page" : undefined}
            className={cn(
              "-mb-px shrink-0 border-b-2 px-2.5 py-2 text-sm sm:px-3 whitespace-nowrap transition-colors",
              active ? "border-primary font-medium text-foreground" : "border-transparent text-muted-foreground hover:text-foreground",
            )}
          >
            {section.label}
          </Link>
        );
      })}
    </nav>
  );
}
