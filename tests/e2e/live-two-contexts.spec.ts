import { expect, test, unique } from "./support/fixtures";
import { ConversationPage, Sidebar, signIn } from "./support/pages";

test("two browser contexts watching one conversation see the same live turn", async ({ browser, api }) => {
  const created = await api.createConversation(unique("shared"));
  await api.waitUntilIdle(created.id);

  const first = await browser.newContext();
  const second = await browser.newContext();
  const pageA = await first.newPage();
  const pageB = await second.newPage();
  await signIn(pageA);
  await signIn(pageB);
  const a = await ConversationPage.open(pageA, created.id);
  const b = await ConversationPage.open(pageB, created.id);

  await a.send("watch this [[delay:300]] [[stream:40]]");
  // B sees the turn while it runs: the same streaming reply, the status dot, the Interrupt control.
  await expect(b.assistantMessages.filter({ hasText: "You said: watch this" })).toHaveAttribute("data-status", "streaming");
  await b.expectRunning();
  await expect(new Sidebar(pageB).conversation(created.title)).toHaveAttribute("data-status", "running");

  const expected = `You said: watch this ${Array.from({ length: 40 }, (_, index) => `w${index + 1}`).join(" ")}`;
  await expect(a.lastReply).toHaveText(expected, { timeout: 40_000 });
  await expect(b.lastReply).toHaveText(expected, { timeout: 40_000 });
  await expect(b.userMessages.filter({ hasText: "watch this" })).toHaveCount(1);

  await first.close();
  await second.close();
});
