/**
 * Tells every tab of this browser that the session ended: a sign-out in one tab writes a
 * localStorage key (the "storage" event reaches the others even as this tab navigates away),
 * and a 401 in this tab raises a window event.
 */
export const SIGNED_OUT_STORAGE_KEY = "atrium:signed-out-at";
export const SESSION_ENDED_EVENT = "atrium:session-ended";

export function announceSignOut(): void {
  window.localStorage.setItem(SIGNED_OUT_STORAGE_KEY, new Date().toISOString());
}

export function reportSessionEnded(): void {
  if (typeof window !== "undefined") window.dispatchEvent(new Event(SESSION_ENDED_EVENT));
}
