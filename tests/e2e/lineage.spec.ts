import { ConversationPage, expect, test, unique } from "./support/fixtures";
import { E2E_TOKEN, DEVICES } from "./support/environment";
import { visit } from "./support/pages";

test("a restart links to its origin, and a restarted message shows ‹ n/m › to move between the original and its restarts", async ({ app, api, request }) => {
  const headers = { authorization: `Bearer ${E2E_TOKEN}` };
  const created = await api.createConversation(unique("lineage"));
  await api.waitUntilIdle(created.id);
  await api.sendMessage(created.id, "second message");
  await api.waitUntilIdle(created.id);
  const items = await api.items(created.id);
  const message = items.find((item) => item.kind === "user_message" && item.text === "second message")!;

  const original = await ConversationPage.open(app.page, created.id);
  const second = original.userMessages.filter({ hasText: "second message" });
  await second.hover();
  await second.getByRole("button", { name: "Restart from here" }).click();
  await app.page.getByRole("alertdialog", { name: "Restart from here" }).getByRole("button", { name: "Restart", exact: true }).click();
  await expect(app.page).not.toHaveURL(new RegExp(created.id));
  const restart = new ConversationPage(app.page);
  await expect(restart.composer).toHaveValue("second message");
  const restartId = restart.id;
  await expect(restart.history.getByRole("note").filter({ hasText: "Restarted from" })).toContainText(`Restarted from ${created.title}. The original is unchanged.`);
  await restart.composer.fill("second message, take two");
  await restart.composer.press("Enter");
  await expect(restart.lastReply).toHaveText("You said: second message, take two");

  // The resent message is version 2 of 2; its ‹ leads back to the original.
  await restart.reload();
  const resent = restart.userMessages.filter({ hasText: "take two" });
  const versions = resent.getByRole("navigation", { name: "Versions of this message" });
  await expect(versions).toContainText("2/2");
  await versions.getByRole("link", { name: `Previous version: ${created.title}` }).click();
  await expect(app.page).toHaveURL(new RegExp(`/c/${created.id}$`));
  await original.expectLive();
  await expect(second.getByRole("navigation", { name: "Versions of this message" })).toContainText("1/2");

  // A second restart of the same message makes it 1/3; › walks to the first restart.
  const rewound = await request.post(`/api/conversations/${created.id}/rewind`, { headers, data: { itemId: message.id } });
  expect(rewound.status()).toBe(201);
  await original.reload();
  const switcher = second.getByRole("navigation", { name: "Versions of this message" });
  await expect(switcher).toContainText("1/3");
  await expect(original.userMessages.first().getByRole("navigation", { name: "Versions of this message" })).toHaveCount(0);
  await switcher.getByRole("link", { name: /^Next version:/ }).click();
  await expect(app.page).toHaveURL(new RegExp(`/c/${restartId}$`));

  // In the sidebar a restart and a fork are marked beside their titles.
  const forked = await request.post(`/api/conversations/${created.id}/fork`, { headers, data: {} });
  expect(forked.status()).toBe(201);
  await expect(app.sidebar.conversation(`${created.title} (fork)`).getByLabel("Fork")).toBeVisible();
  await expect(app.sidebar.conversation(`${created.title} (restart)`).first().getByLabel("Restart")).toBeVisible();
  await expect(app.sidebar.conversation(created.title).getByLabel(/Restart|Fork/)).toHaveCount(0);
});

test("‹ n/m › follows a restart made in another tab, without a reload", async ({ app, api }) => {
  const created = await api.createConversation(unique("lineage live"));
  await api.waitUntilIdle(created.id);
  await api.sendMessage(created.id, "the message to restart");
  await api.waitUntilIdle(created.id);

  // Two tabs of one profile on the same conversation.
  const watching = await ConversationPage.open(app.page, created.id);
  const otherTab = await app.page.context().newPage();
  const acting = await ConversationPage.open(otherTab, created.id);
  const watched = watching.userMessages.filter({ hasText: "the message to restart" });
  await expect(watched.getByRole("navigation", { name: "Versions of this message" })).toHaveCount(0);

  for (const expected of ["1/2", "1/3"]) {
    await otherTab.goto(`/c/${created.id}`);
    await acting.expectLive();
    const message = acting.userMessages.filter({ hasText: "the message to restart" });
    await message.hover();
    await message.getByRole("button", { name: "Restart from here" }).click();
    await otherTab.getByRole("alertdialog", { name: "Restart from here" }).getByRole("button", { name: "Restart", exact: true }).click();
    await expect(otherTab).not.toHaveURL(new RegExp(created.id));
    await expect(watched.getByRole("navigation", { name: "Versions of this message" })).toContainText(expected);
  }
  const restartId = new URL(otherTab.url()).pathname.split("/").pop();
  await watched.getByRole("navigation", { name: "Versions of this message" }).getByRole("link", { name: /^Next version:/ }).click();
  await expect(app.page).not.toHaveURL(new RegExp(`/c/${created.id}$`));
  await expect(app.page).not.toHaveURL(new RegExp(`/c/${restartId}$`));
  await otherTab.close();
});

for (const [device, viewport] of DEVICES) {
  test.describe(`on a ${device}`, () => {
    test.use({ viewport });
    test("the sidebar says under a restart and a fork where each came from, readable however long the title", async ({ app, api, request }) => {
      const headers = { authorization: `Bearer ${E2E_TOKEN}` };
      const created = await api.createConversation(`${unique("loader")} refactor so that it reads the whole history in one pass`);
      await api.waitUntilIdle(created.id);
      await api.sendMessage(created.id, "second message");
      await api.waitUntilIdle(created.id);
      const message = (await api.items(created.id)).find((item) => item.kind === "user_message" && item.text === "second message")!;
      expect((await request.post(`/api/conversations/${created.id}/rewind`, { headers, data: { itemId: message.id } })).status()).toBe(201);
      expect((await request.post(`/api/conversations/${created.id}/fork`, { headers, data: {} })).status()).toBe(201);

      await visit(app.page, "/");
      if (device === "phone") {
        await app.page.getByRole("button", { name: "Open sidebar" }).click();
        await expect(app.page.getByRole("dialog", { name: "Sidebar" })).toBeVisible();
      }
      const original = app.sidebar.conversation(created.title);
      const restart = app.sidebar.conversation(`${created.title} (restart)`);
      const fork = app.sidebar.conversation(`${created.title} (fork)`);
      await expect(restart).toHaveAccessibleDescription(`Restarted from ${created.title}`);
      await expect(fork).toHaveAccessibleDescription(`Forked from ${created.title}`);
      await expect(original).toHaveAccessibleDescription("");
      await expect(original.locator("[data-lineage]")).toHaveCount(0);

      // The line starts with what the row is, and those words are shown whole, inside the row.
      for (const [row, words] of [
        [restart, "Restarted from"],
        [fork, "Forked from"],
      ] as const) {
        const line = row.locator("[data-lineage]");
        await expect(line).toBeVisible();
        await expect(line).toHaveText(`${words} ${created.title}`);
        const shown = await line.locator("span").evaluate((span, prefix) => {
          const range = document.createRange();
          range.setStart(span.firstChild!, 0);
          range.setEnd(span.firstChild!, prefix.length);
          return { words: range.getBoundingClientRect().right, line: span.getBoundingClientRect().right };
        }, words);
        expect(shown.words).toBeLessThanOrEqual(shown.line);
        const rowBox = (await row.boundingBox())!;
        const lineBox = (await line.boundingBox())!;
        expect(lineBox.x + lineBox.width).toBeLessThanOrEqual(rowBox.x + rowBox.width);
        expect(lineBox.y).toBeGreaterThan(rowBox.y);
      }
      await app.page.screenshot({ path: `test-results/screens/lineage-sidebar-${device}.png` });
    });
  });
}
