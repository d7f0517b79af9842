"use client";

/** Opt-in per browser (DESIGN §9): kept in localStorage, read when something happens. */
const KEY = "atrium.notifications";

export function notificationsEnabled(): boolean {
  try {
    return window.localStorage.getItem(KEY) === "on";
  } catch {
    return false;
  }
}

export function setNotificationsEnabled(enabled: boolean): void {
  try {
    if (enabled) window.localStorage.setItem(KEY, "on");
    else window.localStorage.removeItem(KEY);
  } catch {
    // Storage refused (private mode): the setting just does not stick.
  }
}

export function notificationsSupported(): boolean {
  return typeof window !== "undefined" && "Notification" in window;
}
