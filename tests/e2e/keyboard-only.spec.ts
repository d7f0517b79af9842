import type { Locator, Page } from "@playwright/test";
import { ConversationPage, expect, test, unique } from "./support/fixtures";

/** Presses Tab (or Shift+Tab) until the target has focus: the target is reachable in the page's tab order. */
async function tabTo(page: Page, target: Locator, key: "Tab" | "Shift+Tab" = "Tab", limit = 400): Promise<void> {
  for (let presses = 0; presses < limit; presses += 1) {
    if (await target.evaluate((element) => element === document.activeElement)) return;
    await page.keyboard.press(key);
  }
  await expect(target).toBeFocused();
}

test("keyboard only: new chat → approve → restart from here → archive, with visible focus and Enter/Escape doing what they say", async ({ app }) => {
  const { page } = app;
  // Home opens on the composer, focused: type and press Enter.
  const composer = page.getByRole("textbox", { name: "Message" });
  await expect(composer).toBeFocused();
  const words = unique("keyboard");
  await page.keyboard.type(`${words} [[tool:shell {"command":"echo keys"}]]`);
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/c\/[0-9A-Z]{26}$/);
  const conversation = new ConversationPage(page);
  await conversation.expectLive();

  const approve = conversation.history.getByRole("button", { name: "Approve once" });
  await expect(approve).toBeVisible();
  // From the composer, where the page put focus, back up to the approval above it.
  await expect(conversation.composer).toBeFocused();
  await tabTo(page, approve, "Shift+Tab");
  // The focused control shows a ring (focus-visible).
  await expect(approve).toHaveCSS("box-shadow", /0px 0px 0px 3px/);
  await page.keyboard.press("Enter");
  await expect(conversation.lastReply).toHaveText("Tool shell returned: keys");
  await expect(conversation.composer).toBeFocused();

  // Restart from here: reachable by Tab, the dialog takes Escape and Enter.
  const restart = conversation.userMessages.first().getByRole("button", { name: "Restart from here" });
  await tabTo(page, restart, "Shift+Tab");
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("alertdialog", { name: "Restart from here" });
  await expect(dialog).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await expect(restart).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(dialog).toBeVisible();
  await tabTo(page, dialog.getByRole("button", { name: "Restart", exact: true }));
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/c\/[0-9A-Z]{26}$/);
  const restarted = new ConversationPage(page);
  await expect(restarted.title).toHaveText(/\(restart\)$/);
  await expect(restarted.composer).toHaveValue(new RegExp(words));

  // Archive from the conversation menu with arrows and Enter.
  const menuButton = page.getByRole("button", { name: "Conversation actions" });
  await tabTo(page, menuButton, "Shift+Tab");
  await page.keyboard.press("Enter");
  const menu = page.getByRole("menu");
  await expect(menu).toBeVisible();
  const archive = menu.getByRole("menuitem", { name: "Archive" });
  for (let presses = 0; presses < 8 && !(await archive.evaluate((element) => element === document.activeElement)); presses += 1) await page.keyboard.press("ArrowDown");
  await expect(archive).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.getByText("This conversation is archived.")).toBeVisible();
});
