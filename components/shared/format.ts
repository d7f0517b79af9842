const RELATIVE = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });

/** "3 min ago", "yesterday", or a date for anything older than a week. */
export function relativeTime(iso: string, now: number = Date.now()): string {
  const then = new Date(iso).getTime();
  if (Number.isNaN(then)) return "";
  const seconds = Math.round((then - now) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 45) return "just now";
  if (abs < 3600) return RELATIVE.format(Math.round(seconds / 60), "minute");
  if (abs < 86_400) return RELATIVE.format(Math.round(seconds / 3600), "hour");
  if (abs < 7 * 86_400) return RELATIVE.format(Math.round(seconds / 86_400), "day");
  return new Date(iso).toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" });
}

export function dateTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  return date.toLocaleString(undefined, { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
}

/** Shell commands and other tool inputs, shown in one line. */
export function describeToolInput(toolName: string | undefined, input: unknown): string {
  if (input && typeof input === "object") {
    const record = input as Record<string, unknown>;
    if (toolName === "shell" && typeof record.command === "string") return record.command;
    if (typeof record.path === "string") return record.path;
    if (typeof record.question === "string") return record.question;
    if (typeof record.task === "string") return record.task;
  }
  if (input === undefined || input === null) return "";
  return JSON.stringify(input);
}

/** The last segment of a folder path ("/home/me/atrium" → "atrium"); the path itself for "/". */
export function folderName(folder: string): string {
  return folder.split(/[\\/]/).filter(Boolean).at(-1) ?? folder;
}
