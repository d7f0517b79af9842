import { ConversationPage, expect, test, unique } from "./support/fixtures";

test("Interrupt keeps the partial reply, marks it interrupted and says so", async ({ app, api }) => {
  const words = unique("partial");
  const created = await api.createConversation(`${words} [[delay:400]] [[stream:200]]`);
  const conversation = await ConversationPage.open(app.page, created.id);
  await expect(conversation.lastReply).toContainText("w3");

  await conversation.interruptButton.click();
  await conversation.expectIdle();
  await expect(conversation.lastReply).toHaveAttribute("data-status", "interrupted");
  await expect(conversation.lastReply.getByText("interrupted", { exact: true })).toBeVisible();
  await expect(conversation.history.getByRole("note").filter({ hasText: "interrupted by the owner" })).toBeVisible();
  const partial = await conversation.lastReply.locator(".markdown").innerText();
  expect(partial).toContain(`You said: ${words}`);
  expect(partial).not.toContain("w200");

  await conversation.reload();
  await expect(conversation.lastReply.locator(".markdown")).toHaveText(partial);
});

test("Esc interrupts the running turn", async ({ app, api }) => {
  const created = await api.createConversation(`${unique("escape")} [[delay:400]] [[stream:200]]`);
  const conversation = await ConversationPage.open(app.page, created.id);
  await expect(conversation.lastReply).toContainText("w2");
  await conversation.composer.press("Escape");
  await conversation.expectIdle();
  await expect(conversation.lastReply).toHaveAttribute("data-status", "interrupted");
});

test("Stop holds the owner's queue: the next waiting message does not start until the owner runs it", async ({ app, api }) => {
  const created = await api.createConversation(`${unique("hold")} [[delay:400]] [[stream:200]]`);
  const conversation = await ConversationPage.open(app.page, created.id);
  await conversation.expectRunning();
  await conversation.send("wait for me", "Queue");
  await expect(conversation.waitingMessage("wait for me")).toContainText("queued");

  await conversation.interruptButton.click();
  await conversation.expectIdle();
  await expect(conversation.waitingList).toContainText("paused after your interrupt");
  // The page and the server agree that nothing started: one message in the history, the queued one still waiting, the conversation idle.
  await conversation.reload();
  await expect(conversation.waitingMessage("wait for me")).toBeVisible();
  await expect(conversation.userMessages).toHaveCount(1);
  await expect(conversation.interruptButton).toBeHidden();
  expect((await api.getConversation(created.id)).status).toBe("idle");

  await conversation.waitingMessage("wait for me").getByRole("button", { name: "Jump now" }).click();
  await expect(conversation.lastReply).toHaveText("You said: wait for me", { timeout: 30_000 });
  await expect(conversation.waitingList).toBeHidden();
});
