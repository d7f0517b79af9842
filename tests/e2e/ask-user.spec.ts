import { ConversationPage, expect, test, unique } from "./support/fixtures";

test("an ask_user question is answered with one of its choices", async ({ app, api }) => {
  const created = await api.createConversation(`${unique("ask")} [[tool:ask_user {"question":"Pick one","choices":["a","b"]}]]`);
  const conversation = await ConversationPage.open(app.page, created.id);
  const question = conversation.history.getByRole("group", { name: "Question from the agent" });
  await expect(question).toContainText("Pick one");
  await expect(conversation.history.getByRole("status")).toContainText("Waiting for your answer");

  await question.getByRole("button", { name: "b", exact: true }).click();
  await expect(question).toBeHidden();
  await expect(conversation.history.getByText("You answered:")).toContainText("b");
  await expect(conversation.lastReply).toHaveText("Tool ask_user returned: b");
});

test("an ask_user question can be answered in free text", async ({ app, api }) => {
  const created = await api.createConversation(`${unique("ask free")} [[tool:ask_user {"question":"Which colour?"}]]`);
  const conversation = await ConversationPage.open(app.page, created.id);
  const question = conversation.history.getByRole("group", { name: "Question from the agent" });
  await question.getByRole("textbox", { name: "Your answer" }).fill("teal");
  await question.getByRole("button", { name: "Answer" }).click();
  await expect(conversation.lastReply).toHaveText("Tool ask_user returned: teal");
});
