import { ConversationPage, expect, test, unique } from "./support/fixtures";
import { E2E_TOKEN } from "./support/environment";

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

test("each timeline entry ends inside its own turn, also when later turns follow", async ({ app, api, request }) => {
  const created = await api.createConversation(`${unique("timeline bounds")} [[delay:30]] [[stream:3]]`);
  await api.waitUntilIdle(created.id);
  const conversation = await ConversationPage.open(app.page, created.id);
  await conversation.send("second [[delay:30]] [[stream:3]]");
  await expect(conversation.lastReply).toHaveAttribute("data-status", "completed");
  await conversation.send("third [[delay:30]] [[stream:3]]");
  await expect(conversation.lastReply).toHaveText("You said: third w1 w2 w3");
  await api.waitUntilIdle(created.id);

  const headers = { authorization: `Bearer ${E2E_TOKEN}` };
  const turns = ((await (await request.get(`/api/conversations/${created.id}/turns`, { headers })).json()) as { turns: Array<{ id: string }> }).turns;
  expect(turns).toHaveLength(3);
  for (const { id } of turns) {
    const body = (await (await request.get(`/api/turns/${id}`, { headers })).json()) as {
      turn: { startedAt: string; endedAt: string };
      timeline: Array<{ kind: string; startedAt: string; endedAt: string | null }>;
    };
    expect(body.timeline.length).toBeGreaterThan(0);
    for (const entry of body.timeline) {
      expect(entry.startedAt >= body.turn.startedAt, `${entry.kind} starts inside turn ${id}`).toBe(true);
      expect((entry.endedAt ?? entry.startedAt) <= body.turn.endedAt, `${entry.kind} ends inside turn ${id}`).toBe(true);
    }
  }

  // The dialog of the first turn shows a model call no longer than the turn itself.
  await conversation.assistantMessages.first().hover();
  await conversation.assistantMessages.first().getByRole("button", { name: "Turn timeline" }).click();
  await expect(app.page.getByRole("dialog", { name: "Turn timeline" }).locator('li[data-kind="model_call"]').first()).toBeVisible();
});
