import { ConversationPage, expect, test, unique } from "./support/fixtures";
import { visit } from "./support/pages";

const SHELL = '[[tool:shell {"command":"echo hi"}]]';

test("approving a shell command runs it and shows its output", async ({ app, api }) => {
  const created = await api.createConversation(`${unique("approve")} ${SHELL}`);
  const conversation = await ConversationPage.open(app.page, created.id);
  const prompt = conversation.history.getByRole("group", { name: "Approval for shell" });
  await expect(prompt).toContainText("echo hi");
  await expect(app.page.getByRole("link", { name: /Approvals/ })).toContainText(/\d/);

  await prompt.getByRole("button", { name: "Approve" }).click();
  await expect(prompt).toBeHidden();
  await expect(conversation.lastReply).toHaveText("Tool shell returned: hi");
  // The card opened while the command ran; open it if it was closed.
  const card = conversation.history.getByRole("button", { name: "shell: echo hi" });
  if ((await card.getAttribute("aria-expanded")) !== "true") await card.click();
  await expect(conversation.history.getByLabel("shell output")).toHaveText(/hi/);
  // The e2e server runs with the default sandbox (bwrap): the card says the command was confined.
  await expect(conversation.history.locator('[data-item-kind="tool_call"] [data-sandbox="bwrap"]')).toHaveText("sandboxed");
});

test("denying a shell command tells the model and marks the call denied", async ({ app, api }) => {
  const created = await api.createConversation(`${unique("deny")} ${SHELL}`);
  const conversation = await ConversationPage.open(app.page, created.id);
  const prompt = conversation.history.getByRole("group", { name: "Approval for shell" });
  await prompt.getByRole("button", { name: "Deny" }).click();
  await expect(prompt).toBeHidden();
  await expect(conversation.history.locator('[data-item-kind="tool_call"]')).toHaveAttribute("data-status", "denied");
  await expect(conversation.history.getByText("denied", { exact: true })).toBeVisible();
  await conversation.expectIdle();
});

test("the Approvals page lists pending approvals live and decides them", async ({ app, api }) => {
  await visit(app.page, "/approvals");
  const created = await api.createConversation(`${unique("global approval")} ${SHELL}`);
  const entry = app.page.getByRole("region", { name: "Waiting for you" }).getByRole("listitem").filter({ hasText: created.title });
  await expect(entry).toBeVisible();
  await entry.getByRole("button", { name: "Approve" }).click();
  await expect(entry).toBeHidden();
  await expect(app.page.getByRole("region", { name: "Recently decided" }).getByRole("listitem").filter({ hasText: "echo hi" }).first()).toBeVisible();
  await api.waitUntilIdle(created.id);
});

test("a list refetch that left before a decision does not bring the decided approval back", async ({ app, api }) => {
  const created = await api.createConversation(`${unique("stale list")} ${SHELL}`);
  await visit(app.page, "/approvals");
  const entry = app.page.getByRole("region", { name: "Waiting for you" }).getByRole("listitem").filter({ hasText: created.title });
  await expect(entry).toBeVisible();

  // Hold the next GET /api/approvals after the server answered it, while the approval is still pending.
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let answered!: () => void;
  const heldAnswered = new Promise<void>((resolve) => (answered = resolve));
  let held: import("@playwright/test").Request | null = null;
  await app.page.route("**/api/approvals", async (route) => {
    if (held || route.request().method() !== "GET") return route.continue();
    held = route.request();
    const response = await route.fetch();
    answered();
    await released;
    await route.fulfill({ response });
  });
  // Any list event makes the page refetch: a new conversation is one.
  await api.waitUntilIdle((await api.createConversation(unique("list event"))).id);
  await heldAnswered;

  await entry.getByRole("button", { name: "Approve" }).click();
  await expect(entry).toBeHidden();
  await api.waitUntilIdle(created.id);
  // The stale answer arrives last, with nothing after it to correct the list.
  const stale = app.page.waitForResponse((response) => response.request() === held);
  release();
  await stale;
  await app.page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  expect(await entry.count()).toBe(0);
  await app.page.unroute("**/api/approvals");
});
