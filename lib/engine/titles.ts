/** DESIGN §9: the first line of the first message, trimmed, cut to 40 characters, no ellipsis. */
export function titleFromMessage(text: string): string {
  const firstLine = text.split(/\r?\n/, 1)[0]?.trim() ?? "";
  if (firstLine === "") return "New conversation";
  return Array.from(firstLine).slice(0, 40).join("").trim();
}

/** DESIGN §9: a fork is titled "<title> (fork)", a restart "<title> (restart)"; a copy of a copy is not suffixed twice. */
export function derivedTitle(title: string, kind: "fork" | "restart"): string {
  const suffix = ` (${kind})`;
  return title.endsWith(suffix) ? title : `${title}${suffix}`;
}
