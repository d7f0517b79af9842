"use client";

import { KeyRoundIcon } from "lucide-react";
import { useState } from "react";
import { clearAllDrafts } from "@/components/shared/drafts";
import { summarizeBrowser } from "@/lib/auth/browser-summary";
import { Button } from "@/components/ui/button";

export interface SessionRow {
  id: string;
  browser: string;
  createdAt: string;
  lastSeenAt: string;
  current: boolean;
}

function when(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/** Settings → Sessions (DESIGN §10): each browser signed in, and "Sign out everywhere". */
export function SessionSettings({ sessions }: { sessions: SessionRow[] }) {
  const [ending, setEnding] = useState(false);
  const [failed, setFailed] = useState(false);

  const signOutEverywhere = async () => {
    setEnding(true);
    setFailed(false);
    try {
      const answer = await fetch("/api/auth/sessions", { method: "DELETE" });
      if (answer.status !== 204) throw new Error(`status ${answer.status}`);
      clearAllDrafts();
      window.location.assign("/signin?signedOut=1");
    } catch {
      setFailed(true);
      setEnding(false);
    }
  };

  return (
    <section aria-labelledby="session-settings" className="grid gap-3 rounded-lg border p-4">
      <h2 id="session-settings" className="flex items-center gap-2 text-sm font-semibold">
        <KeyRoundIcon className="size-4" />
        Sessions
      </h2>
      {sessions.length === 0 ? (
        <p className="text-xs text-muted-foreground">No browser is signed in (this page was opened with the access token).</p>
      ) : (
        <ul className="grid gap-2" aria-label="Signed-in browsers">
          {sessions.map((session) => (
            <li key={session.id} className="grid gap-0.5 text-sm" data-session-id={session.id}>
              <span className="flex min-w-0 items-center gap-2">
                <span className="truncate font-medium" title={session.browser}>
                  {summarizeBrowser(session.browser)}
                </span>
                {session.current && <span className="shrink-0 rounded-full bg-muted px-2 py-0.5 text-xs text-muted-foreground">This browser</span>}
              </span>
              <span className="text-xs text-muted-foreground">
                Signed in {when(session.createdAt)} · last seen {when(session.lastSeenAt)}
              </span>
            </li>
          ))}
        </ul>
      )}
      <div>
        <Button type="button" variant="outline" size="sm" disabled={ending} onClick={() => void signOutEverywhere()}>
          Sign out everywhere
        </Button>
      </div>
      {failed && <p className="text-xs text-destructive">Could not end the sessions; try again.</p>}
    </section>
  );
}
