import fs from "node:fs";
import os from "node:os";
import path from "node:path";
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

test("at phone width the conversation's project and machine are in its menu, where the header has no room for them", async ({ app, api }) => {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-phone-project-"));
  const created = await api.createConversation(unique("phone project"), { cwd });
  await api.waitUntilIdle(created.id);
  await ConversationPage.open(app.page, created.id);
  // The header keeps its width for the title: the project label is not laid out there.
  await expect(app.page.getByRole("banner").getByRole("note", { name: /^Project: / })).toBeHidden();
  await app.page.getByRole("banner").getByRole("button", { name: "Conversation actions" }).click();
  const menu = app.page.getByRole("menu");
  const project = menu.getByRole("note", { name: `Project: ${path.basename(cwd)} (${cwd}) on local, online` });
  await expect(project).toBeVisible();
  await expect(project).toContainText(path.basename(cwd));
  await expect(project).toContainText(cwd);
  const box = (await project.boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(390);
  await app.page.keyboard.press("Escape");
  await expect(menu).toBeHidden();
  fs.rmSync(cwd, { recursive: true, force: true });
});

test("at phone width a running turn keeps the Running state and the Steer / Queue / Jump labels", async ({ app, api }) => {
  const created = await api.createConversation(unique("phone run"));
  await api.waitUntilIdle(created.id);
  const conversation = await ConversationPage.open(app.page, created.id);
  await conversation.send("keep going [[delay:100]] [[stream:60]]");
  await expect(app.page.getByRole("banner").getByLabel("Status: Running")).toBeVisible();
  const modes = app.page.getByRole("radiogroup", { name: "While the turn runs" });
  for (const label of ["Steer", "Queue", "Jump"]) await expect(modes.getByRole("radio", { name: label })).toContainText(label);
  await expect(app.page.getByText("Enter to steer")).toBeVisible();
  await app.page.screenshot({ path: "test-results/screens/phone-running.png" });
  await conversation.interruptButton.click();
  await conversation.expectIdle();
});

test("at phone width every Settings page fits the screen: nothing is cut off on the right", async ({ app }) => {
  for (const section of ["", "/tools", "/machines", "/cluster", "/approvals"]) {
    await app.page.goto(`/settings${section}`);
    await expect(app.page.getByRole("navigation", { name: "Settings sections" })).toBeVisible();
    // Wide tables scroll inside their own box; the page itself must not be wider than the screen.
    const overflowing = await app.page.evaluate(() =>
      [...document.querySelectorAll("main")].filter((main) => main.scrollWidth > main.clientWidth + 1).map((main) => `${main.scrollWidth} > ${main.clientWidth}`),
    );
    expect(overflowing, `/settings${section}`).toEqual([]);
  }
  const sandbox = await app.page.goto("/settings/tools").then(() => app.page.getByRole("definition").filter({ hasText: "Atrium's data directory" }).boundingBox());
  expect(sandbox!.x + sandbox!.width).toBeLessThanOrEqual(390);
});

test("at phone width a diff leaves the code most of the row: narrow line-number columns", async ({ app, api }) => {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-phone-diff-"));
  fs.writeFileSync(path.join(cwd, "app.js"), "const port = 3000;\napp.listen(port);\n");
  const edit = `[[tool:edit_file ${JSON.stringify({ path: "app.js", old: "3000", new: "8080" })}]]`;
  const created = await api.createConversation(`${unique("phone diff")} ${edit}`, { cwd });
  await api.decideUntilIdle(created.id, "approve");
  const conversation = await ConversationPage.open(app.page, created.id);
  await conversation.history.getByRole("button", { name: "1 file changed +1 −1" }).click();
  const table = conversation.history.getByRole("group", { name: "Diff of the turn's changes" }).locator("table.diff").first();
  const widths = await table.evaluate((element) => {
    const gutter = element.querySelector("td.diff-gutter")!.getBoundingClientRect().width;
    return { gutter, table: element.getBoundingClientRect().width };
  });
  // 7ch each before (two gutters were over a third of a 390 px row), 5ch each now.
  expect(widths.gutter * 2, JSON.stringify(widths)).toBeLessThan(widths.table * 0.3);
  fs.rmSync(cwd, { recursive: true, force: true });
});
