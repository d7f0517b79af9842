import { ConversationPage, expect, test, unique } from "./support/fixtures";

test("delete is refused while a turn runs, then allowed once it stops", async ({ app, api }) => {
  const created = await api.createConversation(`${unique("delete me")} [[delay:400]] [[stream:200]]`);
  const conversation = await ConversationPage.open(app.page, created.id);
  await conversation.expectRunning();

  const menu = await conversation.openMenu();
  const deleteItem = menu.getByRole("menuitem", { name: /Delete/ });
  await expect(deleteItem).toBeDisabled();
  await expect(deleteItem).toContainText("Unavailable while a turn runs");
  await app.page.keyboard.press("Escape");
  await expect(menu).toBeHidden();

  await conversation.interruptButton.click();
  await conversation.expectIdle();
  await conversation.menuAction(/Delete/);
  const dialog = app.page.getByRole("alertdialog");
  await expect(dialog).toContainText(created.title);
  await dialog.getByRole("button", { name: "Delete" }).click();
  await expect(app.page).toHaveURL(/\/$/);
  await expect(app.sidebar.conversation(created.title)).toHaveCount(0);
  const response = await app.page.request.get(`/api/conversations/${created.id}`);
  expect(response.status()).toBe(404);
});

test("a protected conversation says why it cannot be deleted", async ({ app, api }) => {
  const created = await api.createConversation(unique("protect me"));
  await api.waitUntilIdle(created.id);
  const conversation = await ConversationPage.open(app.page, created.id);
  await conversation.menuAction("Protect from deletion");
  await expect(app.page.getByRole("banner").getByLabel("Protected")).toBeVisible();
  const menu = await conversation.openMenu();
  await expect(menu.getByRole("menuitem", { name: /Delete/ })).toContainText("unprotect it first");
});
