import type { Page } from "@playwright/test";
import { expect, test, unique } from "./support/fixtures";
import { ConversationPage, signIn, visit } from "./support/pages";

const TABS = 8;

function words(count: number): string {
  return Array.from({ length: count }, (_, index) => `w${index + 1}`).join(" ");
}

async function leaderOf(pages: Page[]): Promise<Page> {
  await expect.poll(async () => {
    const flags = await Promise.all(pages.map((page) => page.evaluate(() => document.documentElement.dataset.liveLeader === "true")));
    return flags.filter(Boolean).length;
  }).toBe(1);
  for (const page of pages) {
    if (await page.evaluate(() => document.documentElement.dataset.liveLeader === "true")) return page;
  }
  throw new Error("no leader tab");
}

test("eight conversation tabs, the archive and approvals share one live connection; closing the leader loses no word", async ({ browser, api }) => {
  // Eleven pages and nine streamed turns on a 2-core machine: past the default 120 s budget.
  test.setTimeout(180_000);
  const conversations = [];
  for (let index = 0; index < TABS; index += 1) conversations.push(await api.createConversation(unique(`tab ${index + 1}`)));
  for (const conversation of conversations) await api.waitUntilIdle(conversation.id);
  // Nothing else holds a stream, so what is counted below is this browser's.
  await expect.poll(() => api.openStreams(), { timeout: 30_000 }).toBe(0);

  const context = await browser.newContext();
  const first = await context.newPage();
  await signIn(first);
  const tabs: ConversationPage[] = [];
  for (const [index, conversation] of conversations.entries()) {
    const page = index === 0 ? first : await context.newPage();
    tabs.push(await ConversationPage.open(page, conversation.id));
  }
  const archive = await context.newPage();
  await visit(archive, "/archive");
  const approvals = await context.newPage();
  await visit(approvals, "/approvals");

  for (const [index, tab] of tabs.entries()) {
    await tab.send(`hello from tab ${index + 1} [[stream:3]]`);
    // Eleven pages on two cores: a deadline for the reply, not a speed goal (those are in npm run bench).
    await expect(tab.lastReply).toHaveText(`You said: hello from tab ${index + 1} ${words(3)}`, { timeout: 10_000 });
  }
  expect(await api.openStreams()).toBeLessThanOrEqual(2);

  // A second tab on the first conversation streams the same words live.
  const second = await context.newPage();
  const watcher = await ConversationPage.open(second, conversations[0].id);
  const sender = tabs[0];
  await sender.send("long one [[delay:60]] [[stream:80]]");
  await expect(watcher.lastReply).toHaveAttribute("data-status", "streaming");
  await expect(watcher.lastReply).toContainText("w5");

  const everyPage = [...tabs.map((tab) => tab.page), archive, approvals, second];
  const leader = await leaderOf(everyPage);
  await leader.close();
  const remaining = everyPage.filter((page) => page !== leader);
  await leaderOf(remaining);

  await api.waitUntilIdle(conversations[0].id);
  const items = await api.items(conversations[0].id);
  const finalText = items.filter((item) => item.kind === "assistant_message").at(-1)?.text ?? "";
  expect(finalText).toContain(words(80));
  for (const page of [sender.page, second]) {
    if (page === leader) continue;
    const view = new ConversationPage(page);
    await expect(view.lastReply).toHaveAttribute("data-status", "completed");
    expect((await view.lastReply.locator(".markdown").innerText()).trim()).toBe(finalText.trim());
  }
  // The other tabs are still live after the handover: a new send streams in.
  const other = tabs.find((tab) => tab.page !== leader && tab !== sender) ?? tabs[1];
  await other.send("after the handover [[stream:2]]");
  await expect(other.lastReply).toContainText(`after the handover ${words(2)}`, { timeout: 10_000 });
  expect(await api.openStreams()).toBeLessThanOrEqual(2);

  await context.close();
});
