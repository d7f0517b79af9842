import type { Locator, Page } from "@playwright/test";
import { E2E_TOKEN } from "./support/environment";
import { ConversationPage, expect, test, unique } from "./support/fixtures";

// A 1×1 red PNG.
const PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/** The newest message's bottom edge lies inside the history's visible box, and no "Scroll to latest" covers it. */
async function expectLatestVisible(page: Page, history: Locator, latest: Locator): Promise<void> {
  await expect
    .poll(async () => {
      const [box, viewport] = await Promise.all([latest.boundingBox(), history.boundingBox()]);
      if (!box || !viewport) return "not laid out";
      return box.y + box.height <= viewport.y + viewport.height + 1 ? "visible" : `${Math.round(box.y + box.height - viewport.y - viewport.height)} px below`;
    })
    .toBe("visible");
  await expect(page.getByRole("button", { name: "Scroll to latest" })).toBeHidden();
}

test("the view follows the newest message: instant replies, sends with attachments, turns started elsewhere", async ({ app, api, request }) => {
  // A long first reply so the history overflows its viewport.
  const created = await api.createConversation(`${unique("follow")} [[stream:600]]`);
  await api.waitUntilIdle(created.id);
  const conversation = await ConversationPage.open(app.page, created.id);
  const { page } = app;
  await expectLatestVisible(page, conversation.history, conversation.lastReply);

  await conversation.send("instant one");
  await expect(conversation.lastReply).toHaveText("You said: instant one");
  await expectLatestVisible(page, conversation.history, conversation.lastReply);

  const chooser = page.waitForEvent("filechooser");
  await page.getByRole("button", { name: "Attach files" }).click();
  await (await chooser).setFiles({ name: "dot.png", mimeType: "image/png", buffer: Buffer.from(PNG_BASE64, "base64") });
  await expect(page.getByRole("list", { name: "Attachments to send" }).locator('li[data-status="ready"]')).toHaveCount(1);
  await conversation.send("with a picture");
  await expect(conversation.lastReply).toContainText("You said: with a picture");
  await expect(conversation.userMessages.last().getByRole("img")).toBeVisible();
  await expectLatestVisible(page, conversation.history, conversation.lastReply);

  // Started from another client: this tab only watches, and still follows.
  const response = await request.post(`/api/conversations/${created.id}/messages`, {
    headers: { authorization: `Bearer ${E2E_TOKEN}` },
    data: { text: "from elsewhere [[delay:20]] [[stream:150]]" },
  });
  expect(response.status()).toBe(202);
  await expect(conversation.lastReply).toContainText("w150");
  await expectLatestVisible(page, conversation.history, conversation.lastReply);

  // A move up that is not the reader's (the virtual list shifting its offset as it measures rows) keeps following.
  await conversation.history.evaluate((element) => element.scrollBy(0, -600));
  await expectLatestVisible(page, conversation.history, conversation.lastReply);

  // Scrolled up with the wheel, the reader stays put and is offered the way back.
  await conversation.history.hover();
  await page.mouse.wheel(0, -600);
  const back = page.getByRole("button", { name: "Scroll to latest" });
  await expect(back).toBeVisible();
  await back.click();
  await expectLatestVisible(page, conversation.history, conversation.lastReply);
});
