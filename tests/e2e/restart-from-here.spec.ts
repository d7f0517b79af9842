import { ConversationPage, expect, test, unique } from "./support/fixtures";

test("Restart from here opens a new conversation with that message in the composer and leaves the original alone", async ({ app, api }) => {
  const created = await api.createConversation(unique("first message"));
  await api.waitUntilIdle(created.id);
  const original = await ConversationPage.open(app.page, created.id);
  await original.send("second message");
  await expect(original.lastReply).toHaveText("You said: second message");

  const second = original.userMessages.filter({ hasText: "second message" });
  await second.hover();
  await second.getByRole("button", { name: "Restart from here" }).click();
  const dialog = app.page.getByRole("alertdialog", { name: "Restart from here" });
  await expect(dialog).toContainText("No files were changed since this message.");
  await dialog.getByRole("button", { name: "Restart", exact: true }).click();
  await expect(app.page).not.toHaveURL(new RegExp(created.id));
  await expect(app.page).toHaveURL(/\/c\/[0-9A-Z]{26}$/);

  const restarted = new ConversationPage(app.page);
  await expect(restarted.title).toHaveText(`${created.title} (restart)`);
  await expect(restarted.composer).toHaveValue("second message");
  await expect(restarted.userMessages).toHaveCount(1);
  await expect(restarted.userMessages.first()).toContainText(created.title);

  await ConversationPage.open(app.page, created.id);
  await expect(original.userMessages).toHaveCount(2);
  await expect(original.assistantMessages).toHaveCount(2);
});
