import { ConversationPage, expect, test, unique } from "./support/fixtures";

// A 1×1 red PNG.
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==", "base64");

test("before an image goes to a model that cannot take images, the composer says so", async ({ app, api }) => {
  const created = await api.createConversation(unique("image warning"));
  await api.waitUntilIdle(created.id);
  const conversation = await ConversationPage.open(app.page, created.id);
  const warning = app.page.getByTestId("image-model-warning");

  // A text file is inlined for every model: no warning.
  let chooser = app.page.waitForEvent("filechooser");
  await app.page.getByRole("button", { name: "Attach files" }).click();
  await (await chooser).setFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("notes\n") });
  const tray = app.page.getByRole("list", { name: "Attachments to send" });
  await expect(tray.locator('li[data-status="ready"]')).toHaveCount(1);
  await expect(warning).toHaveCount(0);

  chooser = app.page.waitForEvent("filechooser");
  await app.page.getByRole("button", { name: "Attach files" }).click();
  await (await chooser).setFiles({ name: "red-dot.png", mimeType: "image/png", buffer: PNG });
  await expect(tray.locator('li[data-status="ready"]')).toHaveCount(2);
  // The offline model reads text only (its provider's default), and the e2e config has no model that takes images.
  await expect(warning).toHaveText("“red-dot.png” is an image, but model offline cannot take images: it will only be told the file’s name. No configured model takes images.");
  await app.page.screenshot({ path: "test-results/screens/image-warning.png" });

  await tray.getByRole("button", { name: "Remove red-dot.png" }).click();
  await expect(warning).toHaveCount(0);
  await expect(conversation.composer).toBeEditable();

  // The new chat page warns the same way.
  await app.sidebar.newChat();
  chooser = app.page.waitForEvent("filechooser");
  await app.page.getByRole("button", { name: "Attach files" }).click();
  await (await chooser).setFiles({ name: "photo.png", mimeType: "image/png", buffer: PNG });
  await expect(warning).toContainText("“photo.png” is an image, but model offline cannot take images");
});
