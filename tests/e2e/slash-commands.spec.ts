import { ConversationPage, expect, test, unique } from "./support/fixtures";

test("typing / opens the command menu, and /fork forks the conversation", async ({ app, api }) => {
  const created = await api.createConversation(unique("slash"));
  await api.waitUntilIdle(created.id);
  const conversation = await ConversationPage.open(app.page, created.id);

  await conversation.composer.fill("/");
  const menu = app.page.getByRole("listbox", { name: "Commands" });
  for (const command of ["/compact", "/objective <goal>", "/done", "/objective cancel", "/fork"]) {
    await expect(menu.getByRole("option", { name: new RegExp(`^${command.replace(/[<>]/g, ".")}`) })).toBeVisible();
  }
  await conversation.composer.fill("/fo");
  await expect(menu.getByRole("option")).toHaveCount(1);
  await conversation.composer.press("Enter");
  await expect(app.page).not.toHaveURL(new RegExp(created.id));
  await expect(app.page).toHaveURL(/\/c\/[0-9A-Z]{26}$/);
  await expect(new ConversationPage(app.page).history.getByRole("note").filter({ hasText: "Forked from" })).toBeVisible();
});
