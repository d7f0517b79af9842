import { ConversationPage, expect, test, unique } from "./support/fixtures";

test.use({ viewport: { width: 390, height: 844 } });

test("at phone width the sidebar is a sheet opened from the header", async ({ app, api }) => {
  const created = await api.createConversation(unique("phone"));
  await api.waitUntilIdle(created.id);
  await ConversationPage.open(app.page, created.id);
  await expect(app.page.getByRole("complementary", { name: "Sidebar" })).toBeHidden();

  await app.page.getByRole("button", { name: "Open sidebar" }).click();
  const sheet = app.page.getByRole("dialog", { name: "Sidebar" });
  await expect(sheet).toBeVisible();
  await sheet.getByRole("link", { name: "New chat", exact: true }).click();
  await expect(app.page).toHaveURL(/\/new$/);
  await expect(sheet).toBeHidden();
});
