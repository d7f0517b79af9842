"use client";

import { RefreshCwIcon } from "lucide-react";
import { useRouter } from "next/navigation";
import { useTransition } from "react";
import { Button } from "@/components/ui/button";

/** Reloads the server-rendered page: server status changes while it is open (a failing server is retried). */
export function RefreshButton() {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  return (
    <Button variant="outline" size="sm" className="ml-auto" disabled={pending} onClick={() => startTransition(() => router.refresh())}>
      <RefreshCwIcon className={pending ? "animate-spin" : undefined} />
      Refresh
    </Button>
  );
}
