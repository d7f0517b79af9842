/**
 * The sidebar's choices, kept per browser in cookies so the server renders the page the way
 * the browser last left it (no jump of the width or the grouping when the page loads).
 */
export const SIDEBAR_WIDTH_COOKIE = "atrium-sidebar-width";
export const SIDEBAR_GROUPING_COOKIE = "atrium-sidebar-grouping";
/** The project the sidebar is narrowed to (`projectKey`); absent: all projects. */
export const SIDEBAR_PROJECT_COOKIE = "atrium-sidebar-project";
/** The browser's time zone, so the server's first render puts "Today" where the reader's day is. */
export const TIME_ZONE_COOKIE = "atrium-time-zone";

export const SIDEBAR_WIDTH = { min: 220, max: 480, default: 288 } as const;
export type SidebarGrouping = "date" | "project";

export interface SidebarPrefs {
  width: number;
  grouping: SidebarGrouping;
  /** A `projectKey`, or null for all projects. */
  project: string | null;
  timeZone: string;
}

/** A project is a folder on a machine: the key the sidebar groups and filters by. */
export function projectKey(conversation: { machine: string; cwd: string }): string {
  return `${conversation.machine}\u0000${conversation.cwd}`;
}

export function clampWidth(width: number): number {
  return Math.round(Math.min(SIDEBAR_WIDTH.max, Math.max(SIDEBAR_WIDTH.min, width)));
}

function validTimeZone(value: string | undefined): string {
  if (!value) return "UTC";
  try {
    new Intl.DateTimeFormat("en", { timeZone: value });
    return value;
  } catch {
    return "UTC";
  }
}

/** The prefs from cookie values as the server reads them; anything missing or malformed falls back to the default. */
export function parseSidebarPrefs(read: (name: string) => string | undefined): SidebarPrefs {
  const width = Number(read(SIDEBAR_WIDTH_COOKIE));
  return {
    width: Number.isFinite(width) && width > 0 ? clampWidth(width) : SIDEBAR_WIDTH.default,
    grouping: read(SIDEBAR_GROUPING_COOKIE) === "project" ? "project" : "date",
    project: validProjectKey(read(SIDEBAR_PROJECT_COOKIE)),
    timeZone: validTimeZone(read(TIME_ZONE_COOKIE)),
  };
}

/**
 * A project key from a cookie: "<machine id>\u0000<folder>", nothing else (no second NUL,
 * no control characters, bounded). Anything else is ignored rather than rendered.
 */
function validProjectKey(value: string | undefined): string | null {
  if (value === undefined || value.length > 4096) return null;
  const [machine, folder, ...rest] = value.split("\u0000");
  if (rest.length > 0 || !folder || !/^[\w.-]{1,128}$/.test(machine)) return null;
  for (const char of folder) if (char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f) return null;
  return value;
}

/** Remembered for a year, for this site's pages only; null forgets it. */
export function saveSidebarPref(name: string, value: string | null): void {
  document.cookie = value === null ? `${name}=; path=/; max-age=0; samesite=lax` : `${name}=${encodeURIComponent(value)}; path=/; max-age=31536000; samesite=lax`;
}
