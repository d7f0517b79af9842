import { ConversationPage, expect, test, unique } from "./support/fixtures";
import { reload } from "./support/pages";

async function storedDrafts(page: import("@playwright/test").Page): Promise<Record<string, string>> {
  return page.evaluate(() => {
    const drafts: Record<string, string> = {};
    for (let index = 0; index < localStorage.length; index += 1) {
      const key = localStorage.key(index)!;
      if (key.startsWith("atrium:draft:")) drafts[key] = localStorage.getItem(key) ?? "";
    }
    return drafts;
  });
}

test("a conversation's draft survives reload, is its own, and sending clears it", async ({ app, api }) => {
  const one = await api.createConversation(unique("drafts one"));
  const two = await api.createConversation(unique("drafts two"));
  await api.waitUntilIdle(one.id);
  await api.waitUntilIdle(two.id);

  const conversation = await ConversationPage.open(app.page, one.id);
  await conversation.composer.fill("half-written thought");
  await conversation.reload();
  await expect(conversation.composer).toHaveValue("half-written thought");

  await ConversationPage.open(app.page, two.id);
  await expect(conversation.composer).toHaveValue("");

  await ConversationPage.open(app.page, one.id);
  await expect(conversation.composer).toHaveValue("half-written thought");
  await conversation.composer.press("Enter");
  await expect(conversation.userMessages.filter({ hasText: "half-written thought" })).toBeVisible();
  await expect(conversation.composer).toHaveValue("");
  await conversation.reload();
  await expect(conversation.composer).toHaveValue("");
  expect(Object.keys(await storedDrafts(app.page))).not.toContain(`atrium:draft:conversation:${one.id}`);
});

test("the new chat keeps one draft per agent, and a failed creation keeps it", async ({ app }) => {
  const { page, sidebar } = app;
  const newChat = await sidebar.newChat();
  await newChat.composer.fill("draft for a new chat");
  await reload(page);
  await expect(newChat.composer).toHaveValue("draft for a new chat");

  await page.route("**/api/conversations", (route) =>
    route.request().method() === "POST" ? route.fulfill({ status: 503, contentType: "application/json", body: '{"error":{"code":"unavailable","message":"Server is busy."}}' }) : route.continue(),
  );
  await newChat.composer.press("Enter");
  await expect(page.getByRole("alert").filter({ hasText: "The conversation was not created" })).toBeVisible();
  await expect(newChat.composer).toHaveValue("draft for a new chat");
  expect(await storedDrafts(page)).toMatchObject({ "atrium:draft:new:default": "draft for a new chat" });

  await page.unroute("**/api/conversations");
  await page.getByRole("button", { name: "Retry" }).click();
  await expect(page).toHaveURL(/\/c\/[0-9A-Z]{26}$/);
  expect(await storedDrafts(page)).not.toHaveProperty("atrium:draft:new:default");
});

test("deleting a conversation clears its draft", async ({ app, api }) => {
  const created = await api.createConversation(unique("draft then delete"));
  await api.waitUntilIdle(created.id);
  const conversation = await ConversationPage.open(app.page, created.id);
  await conversation.composer.fill("never sent");
  expect(await storedDrafts(app.page)).toHaveProperty(`atrium:draft:conversation:${created.id}`, "never sent");

  await conversation.menuAction(/Delete/);
  await app.page.getByRole("alertdialog").getByRole("button", { name: "Delete" }).click();
  await expect(app.page).toHaveURL(/\/$/);
  expect(await storedDrafts(app.page)).not.toHaveProperty(`atrium:draft:conversation:${created.id}`);
});
