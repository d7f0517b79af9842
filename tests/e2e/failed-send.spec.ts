import { ConversationPage, expect, test, unique } from "./support/fixtures";

test("a send that fails in transit shows Retry, and Retry creates exactly one message", async ({ app, api }) => {
  const created = await api.createConversation(unique("retry send"));
  await api.waitUntilIdle(created.id);
  const conversation = await ConversationPage.open(app.page, created.id);

  // The request reaches the server, but the browser never hears back: exactly the case requestKey exists for.
  let failed = false;
  await app.page.route(`**/api/conversations/${created.id}/messages`, async (route) => {
    if (failed) return route.continue();
    failed = true;
    await route.fetch();
    await route.abort("connectionreset");
  });
  await conversation.send("only once please");
  const unsent = app.page.getByRole("list", { name: "Messages not sent" });
  await expect(unsent).toContainText("only once please");

  await unsent.getByRole("button", { name: "Retry" }).click();
  await expect(unsent).toBeHidden();
  await expect(conversation.lastReply).toHaveText("You said: only once please");
  await expect(conversation.userMessages.filter({ hasText: "only once please" })).toHaveCount(1);
  const items = await api.items(created.id);
  expect(items.filter((item) => item.kind === "user_message" && item.text === "only once please")).toHaveLength(1);
});
