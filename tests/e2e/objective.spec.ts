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
  await expect(conversation.history.getByRole("button", { name: /^Slice 1 of \d+: show its text$/ })).toBeVisible();
  // Opening is a row of its own, before the first slice.
  const opened = conversation.history.locator('[data-item-kind="notice"][data-origin="objective"]').filter({ hasText: "Objective opened" });
  await expect(opened).toHaveText(/^Objective opened: keep going \[\[delay:100\]\] \[\[stream:10\]\] · up to \d+ slices$/);
  const objectiveRows = () => conversation.history.locator('[data-origin="objective"]').evaluateAll((rows) => rows.map((row) => row.getAttribute("data-item-kind")));
  expect((await objectiveRows())[0]).toBe("notice");
  await expect(banner).toContainText(/slice [2-9]\d* of \d+/, { timeout: 60_000 });
  await app.page.screenshot({ path: "test-results/screens/objective.png" });

  await conversation.composer.fill("/done");
  await conversation.composer.press("Enter");
  await expect(app.page.getByText("Objective marked done")).toBeVisible();
  await expect(banner).toBeHidden();
  await expect.poll(async () => (await api.getConversation(created.id)).objective?.status).toBe("completed");
  // The conversation keeps a row saying so, live and after a reload.
  const done = conversation.history.locator('[data-item-kind="notice"][data-origin="objective"]').filter({ hasText: "Objective completed" });
  await expect(done).toHaveText(/^Objective completed · \d+ slices?$/);
  await conversation.reload();
  await expect(done).toBeVisible();
  await expect(opened).toHaveCount(1);
  expect((await objectiveRows())[0]).toBe("notice");
});

test("an objective's slices are compact markers, and where it ended is a row in the timeline", async ({ app, api }) => {
  const created = await api.createConversation(unique("objective rows"));
  await api.waitUntilIdle(created.id);
  const conversation = await ConversationPage.open(app.page, created.id);
  await conversation.composer.fill("/objective count up [[stream:1]]");
  await conversation.composer.press("Enter");
  await expect.poll(async () => (await api.getConversation(created.id)).objective?.status, { timeout: 90_000 }).toBe("paused");
  const { sliceLimit } = (await api.getConversation(created.id)).objective!;
  await conversation.reload();

  const end = conversation.history.getByRole("note").filter({ hasText: "Objective paused" });
  await expect(end).toHaveText(`Objective paused: the slice limit (${sliceLimit}) was reached · ${sliceLimit} slices`);
  await expect(conversation.history.getByRole("button", { name: `Slice ${sliceLimit} of ${sliceLimit}: show its text` })).toBeVisible();
  // No slice is shown as a message bubble from the owner (the rendered rows near the end are markers).
  await expect(conversation.history.locator('[data-origin="objective"]').first()).toBeVisible();
  await expect(conversation.userMessages.locator(".markdown").filter({ hasText: "Continue the objective" })).toHaveCount(0);
  const last = conversation.history.getByRole("button", { name: `Slice ${sliceLimit} of ${sliceLimit}: show its text` });
  await last.click();
  await expect(conversation.history.getByText("Continue the objective: count up [[stream:1]]").last()).toBeVisible();
});
