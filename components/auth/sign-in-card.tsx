"use client";

import { KeyRoundIcon, Loader2Icon } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { clearAllDrafts } from "@/components/shared/drafts";

interface SignInCardProps {
  token: string;
  autoSubmit: boolean;
  notice: "error" | "signedOut" | null;
}

/**
 * Arriving with ?token= submits the form at once. A form POST from this page keeps the
 * sign-in same-site, so the SameSite=Strict cookie is sent on the redirect that follows
 * even when the link was opened from a terminal.
 */
export function SignInCard({ token, autoSubmit, notice }: SignInCardProps) {
  const form = useRef<HTMLFormElement>(null);
  const [submitting, setSubmitting] = useState(autoSubmit);

  useEffect(() => {
    if (notice === "signedOut") clearAllDrafts();
    if (autoSubmit) form.current?.requestSubmit();
  }, [autoSubmit, notice]);

  return (
    <Card className="w-full max-w-sm gap-5">
      <CardHeader className="gap-3">
        <div className="flex size-10 items-center justify-center rounded-lg bg-primary text-primary-foreground">
          <span className="text-lg font-semibold" aria-hidden>
            A
          </span>
        </div>
        <h1 className="text-xl leading-none font-semibold">Sign in to Atrium</h1>
        <CardDescription>
          Paste the access token, or open the sign-in link Atrium printed when it started. <code className="text-xs">npx atrium token</code> shows it again.
        </CardDescription>
      </CardHeader>
      <CardContent>
        <form ref={form} method="post" action="/auth/signin" className="grid gap-4" onSubmit={() => setSubmitting(true)}>
          {notice === "error" && (
            <p role="alert" className="rounded-md border border-destructive/30 bg-destructive/10 px-3 py-2 text-sm text-destructive">
              That token is not right. Check it and try again.
            </p>
          )}
          {notice === "signedOut" && (
            <p role="status" className="rounded-md border bg-muted px-3 py-2 text-sm text-muted-foreground">
              You are signed out. Drafts kept in this browser were cleared.
            </p>
          )}
          <div className="grid gap-2">
            <Label htmlFor="token">Access token</Label>
            <Input id="token" name="token" type="password" autoComplete="current-password" defaultValue={token} required autoFocus={!autoSubmit} />
          </div>
          <Button type="submit" disabled={submitting}>
            {submitting ? <Loader2Icon className="animate-spin" /> : <KeyRoundIcon />}
            {submitting ? "Signing in…" : "Sign in"}
          </Button>
        </form>
      </CardContent>
    </Card>
  );
}
