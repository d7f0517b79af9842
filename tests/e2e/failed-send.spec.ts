import { ConversationPage, expect, test, unique } from "./support/fixtures";

test("a send that fails in transit shows Retry, and Retry creates exactly one message", async ({ app, api }) => {
  const created = await api.createConversation(unique("retry send"));
  await api.waitUntilIdle(created.id);
  const conversation = await ConversationPage.open(app.page, created.id);

  // The request reaches the server, but the browser never hears back: exactly the case requestKey exists for.
  let failed = false;
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  await app.page.route(`**/api/conversations/${created.id}/messages`, async (route) => {
    if (failed) return route.continue();
    failed = true;
    await route.fetch();
    await held;
    await route.abort("connectionreset");
  });
  await conversation.send("only once please");
  // While the answer is outstanding the message shows at once, as sending.
  const sending = app.page.getByRole("list", { name: "Messages being sent" });
  await expect(sending).toContainText("only once please");
  await expect(sending.getByRole("status")).toHaveText("Sending…");
  // Ten seconds without an answer: the row turns into an error with Retry, though the request may still land.
  const unsent = app.page.getByRole("list", { name: "Messages not sent" });
  await expect(unsent.getByRole("alert")).toHaveText("Not sent: no answer from Atrium after 10 s", { timeout: 15_000 });
  await expect(sending).toBeHidden();
  release();
  await expect(unsent.getByRole("alert")).toContainText("Atrium could not be reached");

  await unsent.getByRole("button", { name: "Retry" }).click();
  await expect(unsent).toBeHidden();
  await expect(conversation.lastReply).toHaveText("You said: only once please");
  await expect(conversation.userMessages.filter({ hasText: "only once please" })).toHaveCount(1);
  const items = await api.items(created.id);
  expect(items.filter((item) => item.kind === "user_message" && item.text === "only once please")).toHaveLength(1);
});
