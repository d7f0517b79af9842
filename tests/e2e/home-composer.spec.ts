import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConversationPage, expect, test, unique } from "./support/fixtures";

test("home opens on the new-chat composer with agent, folder and model pre-filled and changeable: type, Enter", async ({ app, api }) => {
  const { page } = app;
  const toolbar = page.getByRole("main");
  await expect(toolbar.getByRole("combobox", { name: "Agent" })).toHaveText(/default/);
  await expect(toolbar.getByRole("combobox", { name: "Model" })).toBeVisible();
  const folder = toolbar.getByRole("button", { name: /^Working directory: / });
  await expect(folder).toBeVisible();

  await folder.click();
  // A small folder of its own: the turn-start checkpoint of a huge one would only slow the test.
  const chosen = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-home-cwd-"));
  await page.getByRole("textbox", { name: "Working directory" }).fill(chosen);
  await page.keyboard.press("Escape");
  await expect(folder).toHaveAttribute("aria-label", `Working directory: ${chosen}`);

  const text = unique("from home");
  const composer = page.getByRole("textbox", { name: "Message" });
  await composer.fill(text);
  await composer.press("Enter");
  await expect(page).toHaveURL(/\/c\/[0-9A-Z]{26}$/);
  const conversation = new ConversationPage(page);
  await expect(conversation.lastReply).toHaveText(`You said: ${text}`);
  const created = await api.getConversation(conversation.id);
  expect(created.cwd).toBe(chosen);
  expect(created.agent).toBe("default");
});
