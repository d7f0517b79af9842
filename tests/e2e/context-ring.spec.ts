import type { APIRequestContext, Page } from "@playwright/test";
import { ConversationPage, expect, test, unique } from "./support/fixtures";
import { E2E_TOKEN } from "./support/environment";

const headers = { authorization: `Bearer ${E2E_TOKEN}` };

async function sendViaApi(request: APIRequestContext, id: string, text: string): Promise<void> {
  const response = await request.post(`/api/conversations/${id}/messages`, { headers, data: { text } });
  expect(response.ok(), await response.text()).toBe(true);
}

test("the context ring shows the figures, and Compact now adds a summary block", async ({ app, api, request }) => {
  const created = await api.createConversation(`${unique("ring")} [[stream:1500]]`);
  await api.waitUntilIdle(created.id);
  for (let index = 0; index < 4; index += 1) {
    await sendViaApi(request, created.id, `more ${index} [[stream:1500]]`);
    await api.waitUntilIdle(created.id);
  }
  const conversation = await ConversationPage.open(app.page, created.id);

  const ring = app.page.getByRole("banner").getByRole("button", { name: /^Context: \d+% used/ });
  await expect(ring).toBeVisible();
  // One basis: the number beside the ring, its accessible label and the popover say the same percentage.
  const labelPercent = /^Context: (\d+)% used/.exec((await ring.getAttribute("aria-label")) ?? "")![1];
  await expect(ring.getByTestId("context-percent")).toHaveText(`${labelPercent}%`);
  await ring.click();
  const popover = app.page.getByRole("dialog", { name: "Context usage" });
  await expect(popover).toBeVisible();
  await expect(popover.getByTestId("context-used")).toHaveText(new RegExp(`^[\\d,]+ \\(${labelPercent}%\\)$`));
  await expect(popover.getByTestId("context-threshold")).toHaveText(/^[\d,]+ \(\d+%\)$/);
  await expect(popover.getByTestId("context-room")).toHaveText(/^[\d,]+$/);
  await expect(popover.getByTestId("context-total")).toContainText(" in · ");
  await expect(popover).toContainText(/reported by the provider|estimate/);
  await expect(popover.getByTestId("context-last-compaction")).toContainText("Not compacted yet");
  await expect(popover.getByTestId("context-basis-why")).toHaveText(/provider's count|^An estimate/);
  await app.page.screenshot({ path: "test-results/screens/context-ring.png" });

  await popover.getByRole("button", { name: "Compact now" }).click();
  await expect(app.page.getByText("Context compacted: older history is now summarized")).toBeVisible();
  const summary = conversation.history.getByRole("button", { name: /Context compacted/ });
  await expect(summary).toBeVisible();
  await summary.click();
  await expect(conversation.history.locator('[data-item-id] [data-state="open"]').first()).toBeVisible();

  await ring.click();
  await expect(popover.getByTestId("context-last-compaction")).toContainText("Last compacted");
  await expect(popover.getByTestId("context-compaction-why")).toContainText("20 % of the window");
  await app.page.screenshot({ path: "test-results/screens/context-ring-compacted.png" });
  await popover.getByRole("button", { name: "Show the summary" }).click();
  await expect(popover).toBeHidden();
});

test("identical content shows identical usage: original, fork, and a restart sent again", async ({ app, api, request }) => {
  const created = await api.createConversation(`${unique("basis")} [[stream:800]]`);
  await api.waitUntilIdle(created.id);
  await sendViaApi(request, created.id, "the second question [[stream:800]]");
  await api.waitUntilIdle(created.id);
  const ring = app.page.getByRole("banner").getByRole("button", { name: /^Context: \d+% used/ });
  const percentOf = async () => /^Context: (\d+)% used/.exec((await ring.getAttribute("aria-label")) ?? "")![1];

  await ConversationPage.open(app.page, created.id);
  await expect(ring).toBeVisible();
  const original = await percentOf();
  expect(Number(original)).toBeGreaterThan(0);

  const forked = await request.post(`/api/conversations/${created.id}/fork`, { headers, data: {} });
  expect(forked.status()).toBe(201);
  const fork = ((await forked.json()) as { conversation: { id: string } }).conversation;
  await ConversationPage.open(app.page, fork.id);
  await expect(ring).toHaveAttribute("aria-label", new RegExp(`^Context: ${original}% used`));
  await ring.click();
  const popover = app.page.getByRole("dialog", { name: "Context usage" });
  await expect(popover.getByTestId("context-basis")).toHaveText("calibrated estimate");
  await expect(popover.getByTestId("context-basis-why")).toContainText("calibrated against the provider's last count");
  await app.page.keyboard.press("Escape");

  const items = await api.items(created.id);
  const second = items.filter((item) => item.kind === "user_message")[1];
  const rewound = await request.post(`/api/conversations/${created.id}/rewind`, { headers, data: { itemId: second.id } });
  expect(rewound.status()).toBe(201);
  const restart = (await rewound.json()) as { conversation: { id: string }; draft: string };
  await sendViaApi(request, restart.conversation.id, restart.draft);
  await api.waitUntilIdle(restart.conversation.id);
  await ConversationPage.open(app.page, restart.conversation.id);
  await expect(ring).toHaveAttribute("aria-label", new RegExp(`^Context: ${original}% used`));
});

test("the ring shows one figure for the same content while a turn runs and once it is idle, and names its basis", async ({ app, api, request, context }) => {
  const created = await api.createConversation(`${unique("running ring")} [[stream:1500]]`);
  await api.waitUntilIdle(created.id);
  await sendViaApi(request, created.id, "more [[stream:1500]]");
  await api.waitUntilIdle(created.id);
  // One tab follows the conversation live (context.updated); a second one, opened later, reads the figure afresh.
  const live = await ConversationPage.open(app.page, created.id);
  const figure = async (page: Page) => {
    const ring = page.getByRole("banner").getByRole("button", { name: /^Context: \d+% used/ });
    await ring.click();
    const popover = page.getByRole("dialog", { name: "Context usage" });
    const shown = {
      used: await popover.getByTestId("context-used").innerText(),
      basis: await popover.getByTestId("context-basis").innerText(),
      why: await popover.getByTestId("context-basis-why").innerText(),
      label: await ring.getAttribute("aria-label"),
    };
    await page.keyboard.press("Escape");
    await expect(popover).toBeHidden();
    return shown;
  };
  const idleBefore = await figure(app.page);

  // The turn stops at an approval: it runs, with its first step recorded and reported.
  await live.send(`run it [[tool:shell {"command":"echo hi"}]]`);
  await expect(live.history.getByRole("group", { name: "Approval for shell" })).toBeVisible();
  await expect.poll(async () => (await figure(app.page)).used).not.toBe(idleBefore.used);
  const fresh = await context.newPage();
  await ConversationPage.open(fresh, created.id);
  await expect(fresh.getByRole("banner").getByLabel("Status: Waiting for you")).toBeVisible();
  const running = await figure(fresh);
  expect(running.basis).toBe("reported by the provider");
  expect(running.why).toContain("provider's count for the last model call");
  // The live tab may still be taking the last context.updated: it must come to the same figure.
  await expect.poll(() => figure(app.page)).toEqual(running);

  // Approved, the turn ends: the figure the live tab got from the last step is the idle conversation's figure.
  await live.history.getByRole("group", { name: "Approval for shell" }).getByRole("button", { name: "Approve once" }).click();
  await live.expectIdle();
  await expect(live.lastReply).toHaveText("Tool shell returned: hi");
  await ConversationPage.open(fresh, created.id);
  const idle = await figure(fresh);
  expect(idle.basis).toBe("reported by the provider");
  expect(idle.used).not.toBe(running.used);
  await expect.poll(() => figure(app.page)).toEqual(idle);
  await fresh.close();
});
