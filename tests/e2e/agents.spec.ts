import { ConversationPage, expect, test, unique } from "./support/fixtures";
import { E2E_TOKEN } from "./support/environment";

test("a subagent appears live in the Agents tab, streams there, and the owner can message it", async ({ app, api, request }) => {
  const created = await api.createConversation(unique("agents"));
  await api.waitUntilIdle(created.id);
  const conversation = await ConversationPage.open(app.page, created.id);

  await app.page.getByRole("banner").getByRole("button", { name: "Agents" }).click();
  const panel = app.page.getByRole("dialog", { name: "Agents" });
  await expect(panel).toBeVisible();
  const sessions = panel.getByRole("listbox", { name: "Sessions" });
  await expect(sessions.getByRole("option", { name: /^Main agent/ })).toBeVisible();
  await expect(panel.getByText("No subagents yet")).toBeVisible();

  // Sent through the API while the Agents sheet is open; the request key makes a resend after a dropped connection safe.
  const send = () =>
    request.post(`/api/conversations/${conversation.id}/messages`, {
      headers: { authorization: `Bearer ${E2E_TOKEN}` },
      data: { text: '[[tool:spawn_agent {"task":"child [[delay:200]] [[stream:30]]"}]]', requestKey: `agents-${conversation.id}` },
    });
  const response = await send().catch(() => send());
  expect(response.ok(), await response.text()).toBe(true);

  const child = sessions.getByRole("option", { name: /^Subagent / });
  await expect(child).toBeVisible();
  await child.click();
  const section = panel.getByRole("region", { name: /^Subagent / });
  const history = section.getByRole("log");
  // Its reply streams word by word while the subagent runs.
  const reply = history.locator('[data-item-kind="assistant_message"]').first();
  await expect(reply).toHaveAttribute("data-status", "streaming");
  await expect(reply).toContainText("w3");
  await app.page.screenshot({ path: "test-results/screens/agents-streaming.png" });
  await expect(reply).toHaveAttribute("data-status", "completed", { timeout: 30_000 });

  const composer = section.getByRole("textbox", { name: /^Message to / });
  await composer.fill("hello child");
  await section.getByRole("button", { name: /^Send to / }).click();
  await expect(history.locator('[data-item-kind="user_message"]').filter({ hasText: "hello child" })).toBeVisible();
  await expect(history.locator('[data-item-kind="assistant_message"]').filter({ hasText: "hello child" }).first()).toBeVisible({ timeout: 30_000 });
  await app.page.screenshot({ path: "test-results/screens/agents-messaged.png" });
});

test("a subagent's approval names its agent in the main timeline and can be decided in the Agents panel", async ({ app, api }) => {
  const task = JSON.stringify({ task: 'child [[tool:shell {"command":"echo from child"}]]' });
  const created = await api.createConversation(`${unique("sub approval")} [[tool:spawn_agent ${task}]]`);
  const conversation = await ConversationPage.open(app.page, created.id);
  const label = conversation.history.locator("[data-subagent-approval]");
  await expect(label).toContainText("From subagent default");
  await expect(conversation.history.getByRole("group", { name: "Approval for shell" })).toBeVisible();

  await app.page.getByRole("banner").getByRole("button", { name: "Agents" }).click();
  const panel = app.page.getByRole("dialog", { name: "Agents" });
  await panel.getByRole("listbox", { name: "Sessions" }).getByRole("option", { name: /^Subagent / }).click();
  const section = panel.getByRole("region", { name: /^Subagent / });
  await section.getByRole("group", { name: "Approval for shell" }).getByRole("button", { name: "Approve once" }).click();
  await expect(section.getByRole("log").locator('[data-item-kind="assistant_message"]').last()).toHaveText("Tool shell returned: from child", { timeout: 30_000 });
  await expect(label).toHaveCount(0);
});
