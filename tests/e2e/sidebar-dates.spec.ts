import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "./support/fixtures";
import { E2E_PORT, E2E_TOKEN } from "./support/environment";
import { hydrated, Sidebar } from "./support/pages";
import { startServerProcess, type ServerProcess } from "../support/server-process";
import { writeLongConversation } from "../../bench/support/long-conversation-fixture";

// Its own server: conversations last touched days and months ago are written to its data directory before it starts.
const PORT = String(E2E_PORT + 22);
const DAY = 86_400_000;
const ZONE = "Pacific/Kiritimati";
const OLD = 126;

let home: string;
let server: ServerProcess;
const now = Date.now();
/** Midnight today in Kiritimati (UTC+14): today there, but still yesterday in UTC for most of the UTC day. */
const zoneMidnight = (() => {
  const parts = new Intl.DateTimeFormat("en-US", { timeZone: ZONE, year: "numeric", month: "numeric", day: "numeric" }).formatToParts(now);
  const value = (type: string) => Number(parts.find((part) => part.type === type)?.value);
  return Date.UTC(value("year"), value("month") - 1, value("day")) - 14 * 3600_000;
})();
const monthLabel = (instant: number) => new Intl.DateTimeFormat("en-US", { timeZone: ZONE, month: "long", year: "numeric" }).format(instant);

test.use({ timezoneId: ZONE, locale: "en-US" });

test.beforeAll(async () => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-e2e-dates-"));
  const write = (title: string, startAt: number) => writeLongConversation(home, 2, () => null, { title, startAt });
  // Placed by the zone's own midnight, not by `now`: 25 hours before 00:30 there is two days back.
  write("Early today there", zoneMidnight + Math.min(60_000, (now - zoneMidnight) / 2));
  write("From yesterday", zoneMidnight - 12 * 3600_000);
  write("Three days back", now - 3 * DAY);
  write("Two weeks back", now - 15 * DAY);
  write("A season ago", now - 90 * DAY);
  for (let index = 0; index < OLD; index += 1) write(`Old ${index}`, now - (200 + index) * DAY);
  server = await startServerProcess(home, { PORT, ATRIUM_TOKEN: E2E_TOKEN, NEXT_TELEMETRY_DISABLED: "1" });
});

test.afterAll(async () => {
  await server?.stop();
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

test("conversations are grouped by the reader's day, page in older ones, and stay live", async ({ page, context }) => {
  await page.goto(`${server.url}/signin?token=${encodeURIComponent(E2E_TOKEN)}`);
  await expect(page).toHaveURL(`${server.url}/`);
  await hydrated(page);
  const sidebar = new Sidebar(page);
  const group = (name: string) => sidebar.conversations.getByRole("region", { name, exact: true });

  await expect(group("Today").getByRole("link", { name: "Early today there" })).toBeVisible();
  await expect(group("Yesterday").getByRole("link", { name: "From yesterday" })).toBeVisible();
  await expect(group("Previous 7 days").getByRole("link", { name: "Three days back" })).toBeVisible();
  await expect(group("Previous 30 days").getByRole("link", { name: "Two weeks back" })).toBeVisible();
  await expect(group(monthLabel(now - 90 * DAY)).getByRole("link", { name: "A season ago" })).toBeVisible();
  const headings = await sidebar.conversations.getByRole("heading").allInnerTexts();
  expect(headings.slice(0, 5)).toEqual(["Today", "Yesterday", "Previous 7 days", "Previous 30 days", monthLabel(now - 90 * DAY)]);

  // The browser's zone reached the server: its HTML groups the same way from the first paint.
  const html = await (await page.request.get(`${server.url}/`)).text();
  expect(html).toMatch(/aria-label="Today"[\s\S]*Early today there[\s\S]*aria-label="Yesterday"/);

  // The first page is 100 conversations; the rest come in on request.
  const links = sidebar.conversations.getByRole("link");
  await expect(links).toHaveCount(100);
  await page.getByRole("button", { name: "Show older conversations" }).click();
  await expect(links).toHaveCount(OLD + 5);
  await expect(page.getByRole("button", { name: "Show older conversations" })).toHaveCount(0);

  // Still live in every tab: a new conversation lands at the top of Today.
  const other = await context.newPage();
  await other.goto(`${server.url}/`);
  await hydrated(other);
  const created = await server.api("/api/conversations", { method: "POST", body: JSON.stringify({ text: "Made just now" }) });
  expect(created.status).toBe(201);
  for (const tab of [sidebar, new Sidebar(other)]) {
    await expect(tab.conversations.getByRole("region", { name: "Today", exact: true }).getByRole("link").first()).toHaveAccessibleName("Made just now");
  }
  await expect(links).toHaveCount(OLD + 6);
});
