import { ConversationPage, expect, test, unique } from "./support/fixtures";

test("archive from the menu, then unarchive from the archive table", async ({ app, api }) => {
  const created = await api.createConversation(unique("archive me"));
  await api.waitUntilIdle(created.id);
  const beforeArchiving = (await api.getConversation(created.id)).updatedAt;
  const conversation = await ConversationPage.open(app.page, created.id);

  await conversation.menuAction("Archive");
  await expect(app.page.getByText("This conversation is archived.")).toBeVisible();
  await expect(app.sidebar.conversation(created.title)).toHaveCount(0);

  await app.archive.open();
  await expect(app.archive.row(created.title)).toBeVisible();
  // "Updated" is the last activity: archiving does not count.
  const lastActivity = (await api.getConversation(created.id)).updatedAt;
  expect(lastActivity).toBe(beforeArchiving);
  await expect(app.archive.row(created.title).locator("time").last()).toHaveAttribute("datetime", lastActivity);
  await app.archive.select(created.title);
  await expect(app.archive.selectionToolbar).toContainText("1 selected");
  await app.archive.selectionToolbar.getByRole("button", { name: "Unarchive" }).click();
  await expect(app.archive.row(created.title)).toHaveCount(0);
  await expect(app.sidebar.conversation(created.title)).toBeVisible();
});

test("the archive table searches, sorts and bulk-deletes on the server", async ({ app, api }) => {
  const tag = unique("bulk");
  const titles: string[] = [];
  for (const letter of ["c", "a", "b"]) {
    const created = await api.createConversation(`${tag} ${letter}`);
    await api.waitUntilIdle(created.id);
    await api.patchConversation(created.id, { archived: true });
    titles.push(created.title);
  }
  await app.archive.open();
  await app.page.getByRole("searchbox", { name: "Search the archive" }).fill(tag);
  const rows = app.archive.table.getByRole("row");
  await expect(rows).toHaveCount(4);

  await app.page.getByRole("button", { name: /Sort by title/ }).click();
  await expect(app.archive.table.getByRole("columnheader", { name: /title/i })).toHaveAttribute("aria-sort", "ascending");
  await expect(rows.nth(1)).toContainText(`${tag} a`);
  await expect(rows.nth(3)).toContainText(`${tag} c`);

  await app.page.getByRole("checkbox", { name: "Select all on this page" }).click();
  await expect(app.archive.selectionToolbar).toContainText("3 selected");
  await app.archive.selectionToolbar.getByRole("button", { name: "Delete" }).click();
  await app.page.getByRole("alertdialog").getByRole("button", { name: "Delete" }).click();
  await expect(app.archive.table).toContainText("No archived conversation matches.");
});

test("opening an archived row opens the conversation", async ({ app, api }) => {
  const created = await api.createConversation(unique("open from archive"));
  await api.waitUntilIdle(created.id);
  await api.patchConversation(created.id, { archived: true });
  await app.archive.open();
  await app.page.getByRole("searchbox", { name: "Search the archive" }).fill(created.title);
  await app.archive.row(created.title).getByRole("cell").nth(3).click();
  await expect(app.page).toHaveURL(new RegExp(`/c/${created.id}$`));
});
