import { ConversationPage, expect, test, unique } from "./support/fixtures";

test("Fork copies the conversation into a new one that names its parent", async ({ app, api }) => {
  const created = await api.createConversation(unique("fork me"));
  await api.waitUntilIdle(created.id);
  const conversation = await ConversationPage.open(app.page, created.id);

  await conversation.menuAction("Fork");
  await expect(app.page).not.toHaveURL(new RegExp(created.id));
  await expect(app.page).toHaveURL(/\/c\/[0-9A-Z]{26}$/);
  const fork = new ConversationPage(app.page);
  await expect(fork.title).toHaveText(`${created.title} (fork)`);
  await expect(app.sidebar.conversation(`${created.title} (fork)`)).toBeVisible();
  await expect(fork.history.getByRole("note").filter({ hasText: "Forked from" })).toContainText(created.title);
  await expect(fork.userMessages).toHaveCount(1);
  await expect(fork.lastReply).toHaveText(`You said: ${created.title}`);

  await fork.history.getByRole("link", { name: created.title }).click();
  await expect(app.page).toHaveURL(new RegExp(`/c/${created.id}$`));
});

test("Rename edits the title inline and the sidebar follows", async ({ app, api }) => {
  const created = await api.createConversation(unique("rename me"));
  await api.waitUntilIdle(created.id);
  const conversation = await ConversationPage.open(app.page, created.id);
  const renamed = unique("Renamed");

  await conversation.menuAction("Rename");
  const input = app.page.getByRole("textbox", { name: "Conversation title" });
  await input.fill(renamed);
  await input.press("Enter");
  await expect(conversation.title).toHaveText(renamed);
  await expect(app.sidebar.conversation(renamed)).toBeVisible();
  await conversation.reload();
  await expect(conversation.title).toHaveText(renamed);
});
