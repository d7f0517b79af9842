import { ConversationPage, expect, test, unique } from "./support/fixtures";

test("the timeline of a turn shows a retried model call and a tool call", async ({ app, api }) => {
  const created = await api.createConversation(`${unique("timeline")} [[fail:503*1]] [[tool:list_dir {"path":"."}]]`);
  await api.waitUntilIdle(created.id, 60_000);
  const conversation = await ConversationPage.open(app.page, created.id);

  await conversation.lastReply.hover();
  await conversation.lastReply.getByRole("button", { name: "Turn timeline" }).click();
  const dialog = app.page.getByRole("dialog", { name: "Turn timeline" });
  await expect(dialog).toBeVisible();
  const entries = dialog.getByRole("list", { name: "Timeline entries" }).getByRole("listitem");
  await expect(entries.first()).toBeVisible();
  await expect(dialog.locator('li[data-kind="retry"]').first()).toBeVisible();
  await expect(dialog.locator('li[data-kind="model_call"]').first()).toBeVisible();
  await expect(dialog.locator('li[data-kind="tool_call"]').first()).toBeVisible();
  await app.page.screenshot({ path: "test-results/screens/timeline.png" });
});
