"use client";

import { BellIcon } from "lucide-react";
import { useEffect, useState } from "react";
import { Checkbox } from "@/components/ui/checkbox";
import { Label } from "@/components/ui/label";
import { notificationsEnabled, notificationsSupported, setNotificationsEnabled } from "@/components/notifications/notification-preference";

type Permission = NotificationPermission | "unsupported";

/** Settings → Notifications: opt in to desktop notifications in this browser. */
export function NotificationSettings() {
  const [enabled, setEnabled] = useState(false);
  const [permission, setPermission] = useState<Permission>("default");
  useEffect(() => {
    setEnabled(notificationsEnabled());
    setPermission(notificationsSupported() ? Notification.permission : "unsupported");
  }, []);

  const change = async (wanted: boolean) => {
    if (!wanted) {
      setNotificationsEnabled(false);
      setEnabled(false);
      return;
    }
    const answer = permission === "granted" ? "granted" : await Notification.requestPermission();
    setPermission(answer);
    setNotificationsEnabled(answer === "granted");
    setEnabled(answer === "granted");
  };

  return (
    <section aria-labelledby="notification-settings" className="grid gap-3 rounded-lg border p-4">
      <h2 id="notification-settings" className="flex items-center gap-2 text-sm font-semibold">
        <BellIcon className="size-4" />
        Notifications
      </h2>
      <div className="flex items-start gap-2">
        <Checkbox id="desktop-notifications" checked={enabled} disabled={permission === "unsupported"} onCheckedChange={(checked) => void change(checked === true)} />
        <Label htmlFor="desktop-notifications" className="grid gap-1 text-sm leading-tight font-normal">
          Desktop notifications
          <span className="text-xs text-muted-foreground">
            When this tab is in the background: a turn ended, or an approval or a question is waiting for you. The tab title always shows how many approvals wait.
          </span>
        </Label>
      </div>
      {permission === "denied" && <p className="text-xs text-destructive">This browser blocks notifications from Atrium; allow them in the site settings, then try again.</p>}
      {permission === "unsupported" && <p className="text-xs text-muted-foreground">This browser has no desktop notifications.</p>}
    </section>
  );
}
