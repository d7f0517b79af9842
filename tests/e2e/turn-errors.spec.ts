import { ConversationPage, expect, test, unique } from "./support/fixtures";

test("a temporary model failure shows a retry notice counting down, then the reply", async ({ app, api }) => {
  // The e2e server's config waits 2 s before the first retry (playwright.config.ts).
  const created = await api.createConversation(unique("flaky"));
  await api.waitUntilIdle(created.id);
  const conversation = await ConversationPage.open(app.page, created.id);
  await conversation.send("try again [[fail:503*1]]");
  const notice = conversation.history.getByRole("status").filter({ hasText: /Retrying/ });
  await expect(notice).toContainText("attempt 1");
  await expect(conversation.lastReply).toHaveText("You said: try again", { timeout: 30_000 });
  await expect(notice).toBeHidden();
});

test("a permanent model failure ends the turn with a clear error", async ({ app, api }) => {
  const created = await api.createConversation(`${unique("broken")} [[fail:400*1]]`);
  const conversation = await ConversationPage.open(app.page, created.id);
  const error = conversation.history.getByRole("alert").filter({ hasText: "This turn failed" });
  await expect(error).toBeVisible();
  await conversation.expectIdle();
});
