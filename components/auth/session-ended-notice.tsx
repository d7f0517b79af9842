"use client";

import { LogInIcon } from "lucide-react";
import { useEffect, useState } from "react";
import { Button } from "@/components/ui/button";
import { SESSION_ENDED_EVENT, SIGNED_OUT_STORAGE_KEY } from "@/components/shared/session-signal";

type Reason = "elsewhere" | "expired";

/** Once the session ends (signed out in another tab, or a request answered 401) the page says so and links to sign-in. */
export function SessionEndedNotice() {
  const [reason, setReason] = useState<Reason | null>(null);
  useEffect(() => {
    const onStorage = (event: StorageEvent) => {
      if (event.key === SIGNED_OUT_STORAGE_KEY && event.newValue) setReason("elsewhere");
    };
    const onEnded = () => setReason((current) => current ?? "expired");
    window.addEventListener("storage", onStorage);
    window.addEventListener(SESSION_ENDED_EVENT, onEnded);
    return () => {
      window.removeEventListener("storage", onStorage);
      window.removeEventListener(SESSION_ENDED_EVENT, onEnded);
    };
  }, []);
  if (reason === null) return null;
  return (
    <div role="alert" className="fixed inset-x-0 top-0 z-50 flex flex-wrap items-center justify-center gap-3 border-b bg-background/95 px-4 py-3 text-sm shadow-md backdrop-blur">
      <span>{reason === "elsewhere" ? "You signed out in another tab." : "Your session has ended."} Sign in again to go on.</span>
      <Button asChild size="sm">
        <a href="/signin">
          <LogInIcon />
          Sign in again
        </a>
      </Button>
    </div>
  );
}
