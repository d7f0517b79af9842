import type { Conversation } from "@/lib/events/entities";
import { folderName } from "@/components/shared/format";
import { projectKey } from "./sidebar-prefs";

export interface ConversationGroup {
  key: string;
  label: string;
  /** A longer description for a tooltip (a project's full path and machine). */
  title?: string;
  conversations: Conversation[];
}

const DAY_MS = 86_400_000;

/** The calendar day of an instant in a time zone, as a UTC midnight (so days subtract exactly). */
function calendarDay(instant: number, timeZone: string): { day: number; year: number; month: number } {
  const parts = new Intl.DateTimeFormat("en-US", { timeZone, year: "numeric", month: "numeric", day: "numeric" }).formatToParts(instant);
  const value = (type: string) => Number(parts.find((part) => part.type === type)?.value);
  const year = value("year");
  const month = value("month");
  return { day: Date.UTC(year, month - 1, value("day")), year, month };
}

/**
 * Recent-first conversations in date groups, in the reader's time zone: Today, Yesterday,
 * Previous 7 days, Previous 30 days, then one group per month ("October 2026"). The order
 * within a group is the list's own.
 */
export function dateGroups(conversations: Conversation[], now: number, timeZone: string, locale?: string): ConversationGroup[] {
  const today = calendarDay(now, timeZone).day;
  const monthName = new Intl.DateTimeFormat(locale, { month: "long", year: "numeric", timeZone: "UTC" });
  const groups = new Map<string, ConversationGroup>();
  for (const conversation of conversations) {
    const instant = Date.parse(conversation.updatedAt);
    const then = calendarDay(Number.isNaN(instant) ? now : instant, timeZone);
    const age = Math.round((today - then.day) / DAY_MS);
    let key: string;
    let label: string;
    if (age <= 0) [key, label] = ["today", "Today"];
    else if (age === 1) [key, label] = ["yesterday", "Yesterday"];
    else if (age <= 7) [key, label] = ["week", "Previous 7 days"];
    else if (age <= 30) [key, label] = ["month", "Previous 30 days"];
    else [key, label] = [`${then.year}-${String(then.month).padStart(2, "0")}`, monthName.format(Date.UTC(then.year, then.month - 1, 1))];
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { key, label, conversations: [] }));
    group.conversations.push(conversation);
  }
  return [...groups.values()];
}

/**
 * Conversations by project (a folder on a machine), the project used most recently first.
 * `machineName` turns a machine id into what the reader knows it by.
 */
export function projectGroups(conversations: Conversation[], machineName: (machineId: string) => string): ConversationGroup[] {
  const groups = new Map<string, ConversationGroup>();
  for (const conversation of conversations) {
    const key = projectKey(conversation);
    let group = groups.get(key);
    if (!group) {
      const machine = machineName(conversation.machine);
      const name = folderName(conversation.cwd);
      group = {
        key,
        label: conversation.machine === "local" ? name : `${name} · ${machine}`,
        title: `${conversation.cwd} on ${machine}`,
        conversations: [],
      };
      groups.set(key, group);
    }
    group.conversations.push(conversation);
  }
  return [...groups.values()];
}
