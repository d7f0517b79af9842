import { ConversationPage, expect, test, unique } from "./support/fixtures";

// A 1×1 red PNG.
const PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

test("an image pasted and a text file picked are uploaded, sent and shown in the message", async ({ app, api }) => {
  const created = await api.createConversation(unique("attach"));
  await api.waitUntilIdle(created.id);
  const conversation = await ConversationPage.open(app.page, created.id);

  await conversation.composer.focus();
  await app.page.evaluate(async (base64) => {
    const bytes = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
    const transfer = new DataTransfer();
    transfer.items.add(new File([bytes], "red-dot.png", { type: "image/png" }));
    const event = new ClipboardEvent("paste", { clipboardData: transfer, bubbles: true, cancelable: true });
    document.activeElement?.dispatchEvent(event);
  }, PNG_BASE64);

  const chooser = app.page.waitForEvent("filechooser");
  await app.page.getByRole("button", { name: "Attach files" }).click();
  await (await chooser).setFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("some notes\n") });

  const tray = app.page.getByRole("list", { name: "Attachments to send" });
  await expect(tray.getByRole("listitem")).toHaveCount(2);
  await expect(tray.locator('li[data-status="ready"]')).toHaveCount(2);

  // A type the server refuses (415) says so on its chip and can be removed.
  const refused = app.page.waitForEvent("filechooser");
  await app.page.getByRole("button", { name: "Attach files" }).click();
  await (await refused).setFiles({ name: "tool.bin", mimeType: "application/octet-stream", buffer: Buffer.from([0, 1, 2, 3]) });
  const failed = tray.locator('li[data-status="failed"]');
  await expect(failed.getByRole("alert")).toContainText("Cannot attach “tool.bin”");
  await app.page.screenshot({ path: "test-results/screens/attachments-refused.png" });
  await tray.getByRole("button", { name: "Remove tool.bin" }).click();
  await expect(tray.getByRole("listitem")).toHaveCount(2);
  await expect(tray.locator('li[data-status="ready"]')).toHaveCount(2);
  await expect(tray.getByRole("button", { name: "Remove notes.txt" })).toBeVisible();
  await app.page.screenshot({ path: "test-results/screens/attachments-tray.png" });

  await conversation.send("look at these");
  await expect(tray).toBeHidden();
  const message = conversation.userMessages.filter({ hasText: "look at these" });
  const shown = message.getByRole("list", { name: "Attachments" });
  await expect(shown.getByRole("img", { name: "red-dot.png" })).toBeVisible();
  await expect.poll(() => shown.getByRole("img", { name: "red-dot.png" }).evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1);
  const file = shown.getByRole("link", { name: "Open file notes.txt" });
  await expect(file).toBeVisible();
  const href = await file.getAttribute("href");
  const served = await app.page.request.get(href!);
  expect(await served.text()).toBe("some notes\n");
  await app.page.screenshot({ path: "test-results/screens/attachments-message.png" });
});
