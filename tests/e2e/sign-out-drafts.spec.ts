import { ConversationPage, expect, test, unique } from "./support/fixtures";

test("signing out clears every draft kept in the browser", async ({ app, api }) => {
  const created = await api.createConversation(unique("sign out drafts"));
  await api.waitUntilIdle(created.id);
  const conversation = await ConversationPage.open(app.page, created.id);
  await conversation.composer.fill("conversation draft");
  const newChat = await app.sidebar.newChat();
  await newChat.composer.fill("new chat draft");

  const before = await app.page.evaluate(() => Object.keys(localStorage).filter((key) => key.startsWith("atrium:draft:")));
  expect(before.length).toBeGreaterThanOrEqual(2);

  await app.sidebar.signOut();
  const after = await app.page.evaluate(() => Object.keys(localStorage).filter((key) => key.startsWith("atrium:draft:")));
  expect(after).toEqual([]);
});
