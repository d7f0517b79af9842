import { describe, expect, it } from "vitest";
import type { Conversation } from "@/lib/events/entities";
import { dateGroups, projectGroups } from "@/components/sidebar/conversation-groups";
import { parseSidebarPrefs, projectKey } from "@/components/sidebar/sidebar-prefs";

function conversation(id: string, updatedAt: string, place: { cwd?: string; machine?: string } = {}): Conversation {
  return { id, title: id, updatedAt, cwd: place.cwd ?? "/work/app", machine: place.machine ?? "local" } as Conversation;
}

const labels = (groups: ReturnType<typeof dateGroups>) => groups.map((group) => [group.label, group.conversations.map((item) => item.id)]);

describe("date groups", () => {
  // 2026-12-03 10:00 UTC is 2026-12-03 19:00 in Tokyo and 2026-12-03 05:00 in New York.
  const now = Date.parse("2026-12-03T10:00:00.000Z");
  const list = [
    conversation("now", "2026-12-03T09:59:00.000Z"),
    conversation("late-yesterday-utc", "2026-12-02T20:00:00.000Z"),
    conversation("four-days", "2026-11-29T12:00:00.000Z"),
    conversation("three-weeks", "2026-11-12T12:00:00.000Z"),
    conversation("october", "2026-10-20T12:00:00.000Z"),
    conversation("last-year", "2025-12-24T12:00:00.000Z"),
  ];

  it("groups by the reader's calendar day: Today, Yesterday, Previous 7 days, Previous 30 days, then by month", () => {
    expect(labels(dateGroups(list, now, "UTC", "en-US"))).toEqual([
      ["Today", ["now"]],
      ["Yesterday", ["late-yesterday-utc"]],
      ["Previous 7 days", ["four-days"]],
      ["Previous 30 days", ["three-weeks"]],
      ["October 2026", ["october"]],
      ["December 2025", ["last-year"]],
    ]);
  });

  it("uses the time zone given: 20:00 UTC yesterday is today in Tokyo", () => {
    expect(labels(dateGroups(list.slice(0, 2), now, "Asia/Tokyo", "en-US"))).toEqual([["Today", ["now", "late-yesterday-utc"]]]);
    // In New York it is 05:00 on the 3rd: 09:59 UTC is today, 20:00 UTC on the 2nd is 15:00 yesterday.
    expect(labels(dateGroups(list.slice(0, 2), now, "America/New_York", "en-US"))).toEqual([
      ["Today", ["now"]],
      ["Yesterday", ["late-yesterday-utc"]],
    ]);
  });

  it("puts a time a little in the future (clock skew) under Today", () => {
    expect(labels(dateGroups([conversation("ahead", "2026-12-03T10:05:00.000Z")], now, "UTC", "en-US"))).toEqual([["Today", ["ahead"]]]);
  });
});

describe("project groups", () => {
  it("groups by folder and machine, the most recent project first, naming the machine only when it is not this one", () => {
    const groups = projectGroups(
      [
        conversation("a1", "2026-12-03T09:00:00.000Z", { cwd: "/work/app" }),
        conversation("b1", "2026-12-03T08:00:00.000Z", { cwd: "/work/app", machine: "m1" }),
        conversation("c1", "2026-12-03T07:00:00.000Z", { cwd: "/srv/site" }),
        conversation("a2", "2026-12-03T06:00:00.000Z", { cwd: "/work/app" }),
      ],
      (id) => (id === "m1" ? "build box" : id),
    );
    expect(groups.map((group) => [group.label, group.title, group.conversations.map((item) => item.id)])).toEqual([
      ["app", "/work/app on local", ["a1", "a2"]],
      ["app · build box", "/work/app on build box", ["b1"]],
      ["site", "/srv/site on local", ["c1"]],
    ]);
  });
});

describe("sidebar prefs from cookies", () => {
  it("keeps the width within bounds and falls back on anything malformed", () => {
    const read = (values: Record<string, string>) => (name: string) => values[name];
    expect(parseSidebarPrefs(read({}))).toEqual({ width: 288, grouping: "date", project: null, timeZone: "UTC" });
    expect(parseSidebarPrefs(read({ "atrium-sidebar-width": "9000", "atrium-sidebar-grouping": "project", "atrium-time-zone": "Europe/Berlin" }))).toEqual({
      width: 480,
      grouping: "project",
      project: null,
      timeZone: "Europe/Berlin",
    });
    expect(parseSidebarPrefs(read({ "atrium-sidebar-width": "abc", "atrium-time-zone": "Mars/Olympus" }))).toEqual({ width: 288, grouping: "date", project: null, timeZone: "UTC" });
    expect(parseSidebarPrefs(read({ "atrium-sidebar-width": "10" })).width).toBe(220);
  });

  it("keeps the project filter only when it names a folder on a machine", () => {
    const read = (values: Record<string, string>) => (name: string) => values[name];
    expect(parseSidebarPrefs(read({ "atrium-sidebar-project": "local\u0000/work/app" })).project).toBe("local\u0000/work/app");
    expect(parseSidebarPrefs(read({ "atrium-sidebar-project": "/work/app" })).project).toBeNull();
    // Hostile values are ignored, never rendered: a second NUL, control characters, a strange machine id, no folder, too long.
    for (const hostile of ["local\u0000/a\u0000b", "local\u0000/a\nb", "local\u0000/a\u001bb", "<script>\u0000/a", "local\u0000", `local\u0000/${"a".repeat(5000)}`]) {
      expect(parseSidebarPrefs(read({ "atrium-sidebar-project": hostile })).project, JSON.stringify(hostile)).toBeNull();
    }
    expect(projectKey({ machine: "m1", cwd: "/srv/site" })).toBe("m1\u0000/srv/site");
  });
});
