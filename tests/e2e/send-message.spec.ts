import { expect, test, unique } from "./support/fixtures";

test("a new chat saves nothing until sent, then streams the reply into the new conversation", async ({ app, api }) => {
  const { page, sidebar } = app;
  const words = unique("hello");
  const newChat = await sidebar.newChat();
  await expect(page.getByRole("note")).toContainText("not an LLM");
  await expect(sidebar.conversations.getByRole("link", { name: new RegExp(words) })).toHaveCount(0);

  const conversation = await newChat.start(`${words} [[delay:300]] [[stream:30]]`);
  await expect(conversation.userMessages.first()).toContainText(words);
  // The reply is seen while it streams, then complete.
  await expect(conversation.lastReply).toHaveAttribute("data-status", "streaming");
  await expect(conversation.lastReply).toContainText(`You said: ${words}`);
  await expect(conversation.lastReply).toHaveAttribute("data-status", "completed", { timeout: 40_000 });
  await expect(conversation.lastReply).toHaveText(`You said: ${words} ${Array.from({ length: 30 }, (_, index) => `w${index + 1}`).join(" ")}`);

  // The title is the first line of the first message, cut to 40 characters.
  const saved = await api.getConversation(conversation.id);
  expect(saved.title).toBe(`${words} [[delay:300]] [[stream:30]]`.slice(0, 40));
  await expect(sidebar.conversation(saved.title)).toBeVisible();
});
