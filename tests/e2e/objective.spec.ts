import { ConversationPage, expect, test, unique } from "./support/fixtures";

test("/objective opens a goal, slices run and update the banner, /done finishes it", async ({ app, api }) => {
  const created = await api.createConversation(unique("objective"));
  await api.waitUntilIdle(created.id);
  const conversation = await ConversationPage.open(app.page, created.id);

  await conversation.composer.fill("/objective keep going [[delay:100]] [[stream:10]]");
  await conversation.composer.press("Enter");
  const banner = app.page.getByRole("region", { name: "Objective" });
  await expect(banner).toContainText("keep going");
  await expect(banner).toContainText(/slice [1-9]\d* of \d+/);
  // A slice runs as a turn whose message comes from the objective.
  await expect(conversation.history.getByText("Objective slice").first()).toBeVisible();
  await expect(banner).toContainText(/slice [2-9]\d* of \d+/, { timeout: 60_000 });
  await app.page.screenshot({ path: "test-results/screens/objective.png" });

  await conversation.composer.fill("/done");
  await conversation.composer.press("Enter");
  await expect(app.page.getByText("Objective marked done")).toBeVisible();
  await expect(banner).toBeHidden();
  await expect.poll(async () => (await api.getConversation(created.id)).objective?.status).toBe("completed");
});
