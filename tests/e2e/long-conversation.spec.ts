import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "./support/fixtures";
import { E2E_PORT, E2E_TOKEN } from "./support/environment";
import { ConversationPage, hydrated } from "./support/pages";
import { startServerProcess, type ServerProcess } from "../support/server-process";
import { writeLongConversation } from "../../bench/support/long-conversation-fixture";

// Its own server on its own port: the 600-item conversation is written to its data directory before
// it starts (making one through the API would take 300 turns), and the shared server's home stays as it was.
const PORT = String(E2E_PORT + 20);
const ITEMS = 600;
/** The first page holds the latest 100 items; this one is far older. */
const OLD_HIT = 41;

let home: string;
let server: ServerProcess;
let conversationId: string;

test.beforeAll(async () => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-e2e-long-"));
  conversationId = writeLongConversation(home, ITEMS, (index) => (index === OLD_HIT ? "Reply 41: the quokka was here, long ago." : null)).conversationId;
  server = await startServerProcess(home, { PORT, ATRIUM_TOKEN: E2E_TOKEN, NEXT_TELEMETRY_DISABLED: "1" });
});

test.afterAll(async () => {
  await server?.stop();
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

test("a 600-item conversation opens at the latest, stays virtual, pages older items in, finds an old one and still streams", async ({ page }) => {
  await page.goto(`${server.url}/signin?token=${encodeURIComponent(E2E_TOKEN)}`);
  await expect(page).toHaveURL(`${server.url}/`);
  const pages: string[] = [];
  page.on("request", (request) => {
    if (request.url().includes(`/api/conversations/${conversationId}/items?`)) pages.push(new URL(request.url()).search);
  });
  await page.goto(`${server.url}/c/${conversationId}`);
  await hydrated(page);
  const conversation = new ConversationPage(page);
  await conversation.expectLive();
  const history = conversation.history;

  // Opens at the bottom with the latest message in view, and only rows near the viewport are in the DOM.
  await expect(history.getByText(`Reply ${ITEMS - 1}:`)).toBeInViewport();
  const rows = history.locator("[data-index]");
  expect(await rows.count()).toBeLessThan(40);
  await expect(history.getByText("Message 0:")).toHaveCount(0);

  // Find: the old hit is not loaded; the window around it is, it is scrolled to, outlined and its word marked.
  await page.keyboard.press("Control+f");
  const findBar = page.getByRole("search", { name: "Find in conversation" });
  await findBar.getByRole("textbox", { name: "Find in conversation" }).fill("quokka");
  await expect(findBar.getByRole("status")).toHaveText("1 of 1");
  const hit = history.locator("[data-search-hit]");
  await expect(hit).toContainText("the quokka was here");
  await expect(hit).toBeInViewport();
  expect(pages.some((search) => search.includes("around="))).toBe(true);
  expect(await page.evaluate(() => CSS.highlights.get("atrium-find-current")?.size ?? 0)).toBe(1);
  expect(await rows.count()).toBeLessThan(40);

  // No matches is said plainly; Esc closes the bar and takes the marks away.
  await findBar.getByRole("textbox").fill("giraffe");
  await expect(findBar.getByRole("status")).toHaveText("No matches");
  await expect(history.locator("[data-search-hit]")).toHaveCount(0);
  await findBar.getByRole("textbox").press("Escape");
  await expect(findBar).toBeHidden();
  await expect(history.locator("[data-search-hit]")).toHaveCount(0);

  // Back to the latest page, then up: each page before the first loaded one comes in as the reader nears the top.
  await page.getByRole("button", { name: "Scroll to latest" }).click();
  await expect(history.getByText(`Reply ${ITEMS - 1}:`)).toBeInViewport();
  // The keyboard scrolls the history: PageUp moves up from the end.
  await history.focus();
  const atEnd = await history.evaluate((element) => element.scrollTop);
  await page.keyboard.press("PageUp");
  await expect.poll(() => history.evaluate((element) => element.scrollTop)).toBeLessThan(atEnd - 100);

  const before = pages.filter((search) => search.includes("before=")).length;
  await expect
    .poll(
      async () => {
        await history.evaluate((element) => element.scrollBy(0, -4000));
        return history.getByText("Message 0:", { exact: false }).count();
      },
      { timeout: 60_000, intervals: [100] },
    )
    .toBe(1);
  expect(pages.filter((search) => search.includes("before=")).length - before).toBeGreaterThanOrEqual(4);
  expect(await rows.count()).toBeLessThan(40);
  // The rows above were added without moving the reader: still near the top, the way back to the latest offered.
  await expect(page.getByRole("button", { name: "Scroll to latest" })).toBeVisible();
  await expect(history.getByText(`Reply ${ITEMS - 1}:`)).toHaveCount(0);
  await history.evaluate((element) => element.scrollTo(0, 0));
  await expect(history.getByText("Message 0:")).toBeInViewport();
  await expect(history.getByRole("button", { name: "Show earlier messages" })).toHaveCount(0);

  // A new message still streams at the bottom, followed to its end.
  await conversation.send("one more [[stream:40]] [[delay:15]]");
  await expect(conversation.lastReply).toContainText("w40");
  await expect(conversation.lastReply).toHaveAttribute("data-status", "completed");
  await expect(conversation.lastReply).toBeInViewport();
  await expect(page.getByRole("button", { name: "Scroll to latest" })).toBeHidden();
});

test("a sidebar search hit far back in a long conversation pages its window in and shows the match", async ({ page }) => {
  await page.goto(`${server.url}/signin?token=${encodeURIComponent(E2E_TOKEN)}`);
  await expect(page).toHaveURL(`${server.url}/`);
  await hydrated(page);
  const pages: string[] = [];
  page.on("request", (request) => {
    if (request.url().includes(`/api/conversations/${conversationId}/items?`)) pages.push(new URL(request.url()).search);
  });
  await page.getByRole("searchbox", { name: "Search conversations" }).fill("quokka");
  const result = page.getByRole("navigation", { name: "Conversations" }).getByRole("link", { name: `A long conversation (${ITEMS} items)` });
  await expect(result).toHaveAttribute("href", `/c/${conversationId}?find=quokka`);
  await result.click();
  await hydrated(page);
  const conversation = new ConversationPage(page);
  await conversation.expectLive();
  const findBar = page.getByRole("search", { name: "Find in conversation" });
  await expect(findBar.getByRole("status")).toHaveText("1 of 1");
  const hit = conversation.history.locator("[data-search-hit]");
  await expect(hit).toContainText("the quokka was here");
  await expect(hit).toBeInViewport();
  expect(pages.some((search) => search.includes("around="))).toBe(true);
  await expect.poll(() => page.evaluate(() => [...(CSS.highlights.get("atrium-find-current") ?? [])].map((range) => String(range)))).toEqual(["quokka"]);
});
