import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConversationPage, expect, test, unique } from "./support/fixtures";
import { visit } from "./support/pages";

function tool(name: string, input: object): string {
  return `[[tool:${name} ${JSON.stringify(input)}]]`;
}

test("file edits show as diffs, the turn shows its changed files, and Restart from here can put the files back", async ({ app, api }) => {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-e2e-cwd-"));
  try {
    fs.writeFileSync(path.join(cwd, "notes.txt"), "alpha\nbeta\n");
    const created = await api.createConversation(unique("checkpoints"), { cwd });
    await api.waitUntilIdle(created.id);
    await api.sendMessage(created.id, tool("edit_file", { path: "notes.txt", old: "beta", new: "BETA" }) + tool("shell", { command: "echo new > made.txt" }));
    await api.decideUntilIdle(created.id, "approve");
    expect(fs.readFileSync(path.join(cwd, "notes.txt"), "utf8")).toBe("alpha\nBETA\n");

    const conversation = await ConversationPage.open(app.page, created.id);
    const editDiff = conversation.history.getByLabel("Diff of notes.txt");
    await expect(editDiff.locator(".diff-code-delete")).toHaveText("beta");
    await expect(editDiff.locator(".diff-code-insert")).toHaveText("BETA");
    await editDiff.scrollIntoViewIfNeeded();
    await app.page.screenshot({ path: "test-results/checkpoints-edit-card.png" });

    const changed = conversation.history.getByRole("button", { name: "2 files changed +2 −1" });
    await expect(changed).toBeVisible();
    await conversation.history.getByRole("button", { name: "Changed 1 file: see the turn's changes" }).click();
    await expect(changed).toHaveAttribute("aria-expanded", "true");
    const turnDiff = conversation.history.getByLabel("Diff of the turn's changes");
    await expect(turnDiff.getByRole("region", { name: "Changes to made.txt" }).locator(".diff-code-insert")).toHaveText("new");
    await expect(conversation.history.getByRole("list", { name: "Changed files" })).toContainText("made.txt");
    await app.page.screenshot({ path: "test-results/checkpoints-diffs.png", fullPage: false });

    const second = conversation.userMessages.nth(1);
    await second.hover();
    await second.getByRole("button", { name: "Restart from here" }).click();
    const dialog = app.page.getByRole("alertdialog", { name: "Restart from here" });
    const listed = dialog.getByRole("list", { name: "Files changed since this message" });
    await expect(listed).toContainText("notes.txt");
    await expect(listed).toContainText("made.txt");
    await dialog.getByRole("checkbox", { name: "Also restore files to how they were before this message" }).check();
    await app.page.screenshot({ path: "test-results/checkpoints-restart-dialog.png" });
    await dialog.getByRole("button", { name: "Restart", exact: true }).click();
    await expect(app.page).not.toHaveURL(new RegExp(created.id));
    await expect(new ConversationPage(app.page).composer).toHaveValue(/tool:edit_file/);
    expect(fs.readFileSync(path.join(cwd, "notes.txt"), "utf8")).toBe("alpha\nbeta\n");
    expect(fs.existsSync(path.join(cwd, "made.txt"))).toBe(false);
  } finally {
    fs.rmSync(cwd, { recursive: true, force: true });
  }
});

test("with notifications on, an approval waiting in a hidden tab fires a desktop notification and the title counts it", async ({ app, api, context }) => {
  await context.grantPermissions(["notifications"]);
  await context.addInitScript(() => {
    const shown: Array<{ title: string; body: string | undefined }> = [];
    (window as unknown as { shownNotifications: typeof shown }).shownNotifications = shown;
    const Original = window.Notification;
    class Recorded extends Original {
      constructor(title: string, options?: NotificationOptions) {
        super(title, options);
        shown.push({ title, body: options?.body });
      }
    }
    Object.defineProperty(window, "Notification", { value: Recorded, configurable: true, writable: true });
    // The tab counts as hidden once the test says so (Playwright cannot background a tab).
    Object.defineProperty(document, "visibilityState", {
      configurable: true,
      get: () => (sessionStorage.getItem("test.hidden") === "1" ? "hidden" : "visible"),
    });
  });

  await visit(app.page, "/settings");
  await app.page.getByRole("checkbox", { name: /Desktop notifications/ }).check();
  await expect(app.page.getByRole("checkbox", { name: /Desktop notifications/ })).toBeChecked();
  await app.page.screenshot({ path: "test-results/settings-notifications.png" });
  await visit(app.page, "/");
  await app.page.evaluate(() => sessionStorage.setItem("test.hidden", "1"));

  const created = await api.createConversation(`${unique("notify")} ${tool("shell", { command: "echo hi" })}`);
  try {
    await expect
      .poll(() => app.page.evaluate(() => (window as unknown as { shownNotifications: Array<{ title: string; body?: string }> }).shownNotifications))
      .toContainEqual({ title: "Approval needed", body: `${created.title}: shell is waiting for your approval` });
    await expect(app.page).toHaveTitle(/^\(\d+\) /);
  } finally {
    await api.decideUntilIdle(created.id, "deny");
  }
});
