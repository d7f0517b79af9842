import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConversationPage, expect, test, unique } from "./support/fixtures";

const tool = (name: string, input: object) => `[[tool:${name} ${JSON.stringify(input)}]]`;

test("a turn's diff expands its context, and Revert puts one file back to before the turn, asking first when it changed outside Atrium", async ({ app, api }) => {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-e2e-revert-"));
  const lines = Array.from({ length: 60 }, (_, index) => `line ${index + 1}`);
  fs.writeFileSync(path.join(cwd, "long.txt"), `${lines.join("\n")}\n`);
  fs.writeFileSync(path.join(cwd, "notes.txt"), "v1\n");
  const text = `${unique("revert")} ${tool("edit_file", { path: "long.txt", old: "line 30\n", new: "line thirty\n" })}${tool("write_file", { path: "notes.txt", content: "v2\n" })}`;
  const created = await api.createConversation(text, { cwd });
  await api.decideUntilIdle(created.id, "approve");
  expect(fs.readFileSync(path.join(cwd, "notes.txt"), "utf8")).toBe("v2\n");

  const conversation = await ConversationPage.open(app.page, created.id);
  await conversation.history.getByRole("button", { name: "2 files changed +2 −2" }).click();
  const turnDiff = conversation.history.getByRole("group", { name: "Diff of the turn's changes" });
  const long = turnDiff.getByRole("region", { name: "Changes to long.txt" });
  const codeLines = long.locator("td.diff-code");
  await expect(codeLines.filter({ hasText: /^line 27$/ })).toHaveCount(1);
  await expect(codeLines.filter({ hasText: /^line 10$/ })).toHaveCount(0);

  await long.getByRole("button", { name: "Show 20 lines of context of long.txt" }).click();
  await expect(codeLines.filter({ hasText: /^line 10$/ })).toHaveCount(1);
  await expect(codeLines.filter({ hasText: /^line 1$/ })).toHaveCount(0);
  await long.getByRole("button", { name: "Show the whole file of long.txt" }).click();
  await expect(codeLines.filter({ hasText: /^line 1$/ })).toHaveCount(1);
  await expect(codeLines.filter({ hasText: /^line 60$/ })).toHaveCount(1);
  await app.page.screenshot({ path: "test-results/screens/diff-context.png" });
  await long.getByRole("button", { name: "Show less context in long.txt" }).click();
  await expect(codeLines.filter({ hasText: /^line 10$/ })).toHaveCount(0);

  // Changed outside Atrium: the dialog says so before overwriting.
  fs.writeFileSync(path.join(cwd, "notes.txt"), "the owner's edit\n");
  await turnDiff.getByRole("button", { name: "Revert notes.txt to before this turn" }).click();
  const dialog = app.page.getByRole("alertdialog", { name: "Revert notes.txt?" });
  await dialog.getByRole("button", { name: "Revert", exact: true }).click();
  await expect(dialog.getByRole("alert")).toContainText("notes.txt changed outside Atrium");
  expect(fs.readFileSync(path.join(cwd, "notes.txt"), "utf8")).toBe("the owner's edit\n");
  await app.page.screenshot({ path: "test-results/screens/diff-revert-outside.png" });
  await dialog.getByRole("button", { name: "Revert anyway" }).click();
  await expect(app.page.getByText("Reverted notes.txt to before this turn")).toBeVisible();
  await expect.poll(() => fs.readFileSync(path.join(cwd, "notes.txt"), "utf8")).toBe("v1\n");

  // By keyboard: Enter on Revert, Enter on the dialog's Revert; the other file of the turn was left as it was until now.
  expect(fs.readFileSync(path.join(cwd, "long.txt"), "utf8")).toContain("line thirty\n");
  await long.getByRole("button", { name: "Revert long.txt to before this turn" }).focus();
  await app.page.keyboard.press("Enter");
  const second = app.page.getByRole("alertdialog", { name: "Revert long.txt?" });
  await second.getByRole("button", { name: "Revert", exact: true }).focus();
  await app.page.keyboard.press("Enter");
  await expect(app.page.getByText("Reverted long.txt to before this turn")).toBeVisible();
  expect(fs.readFileSync(path.join(cwd, "long.txt"), "utf8")).toBe(`${lines.join("\n")}\n`);
  fs.rmSync(cwd, { recursive: true, force: true });
});
