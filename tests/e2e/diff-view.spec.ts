import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConversationPage, expect, test, unique } from "./support/fixtures";

const tool = (name: string, input: object) => `[[tool:${name} ${JSON.stringify(input)}]]`;

test("a pending edit shows its diff against the real file — real line numbers, context, word marks, no git headers — and a turn's diff lists its files with unified and split views", async ({ app, api }) => {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-e2e-diff-"));
  fs.writeFileSync(path.join(cwd, "notes.txt"), "one\ntwo\nthree little pigs\nfour\nfive\nsix\n");
  const created = await api.createConversation(`${unique("diff")} ${tool("edit_file", { path: "notes.txt", old: "three little pigs", new: "three big pigs" })}`, { cwd });
  const conversation = await ConversationPage.open(app.page, created.id);
  const card = conversation.history.locator('[data-item-kind="tool_call"]');
  await expect(card.getByRole("group", { name: "Approval for edit_file" })).toBeVisible();
  const trigger = card.getByRole("button", { name: /^edit_file/ });
  if ((await trigger.getAttribute("aria-expanded")) !== "true") await trigger.click();

  const pending = card.getByRole("group", { name: "Diff of notes.txt" });
  const changed = pending.locator("tr").filter({ has: app.page.locator(".diff-code-insert") });
  // Line 3 of the real file, not line 1 of the call's input.
  await expect(changed.locator(".diff-gutter").last()).toHaveText("3");
  await expect(changed.locator(".diff-code-edit")).toHaveText("big");
  await expect(pending.locator(".diff-code-normal").first()).toHaveText("one");
  await expect(pending).not.toContainText("@@ -1,1 +1,1 @@");
  await expect(card).toContainText("Not run yet.");
  await expect(card).not.toContainText("No output.");

  await card.getByRole("button", { name: "Approve once" }).click();
  await expect(conversation.lastReply).toContainText("Tool edit_file returned");
  await conversation.send(tool("write_file", { path: "added.txt", content: "brand new\n" }) + tool("edit_file", { path: "notes.txt", old: "six", new: "SIX" }));
  // The turn has started (its first approval shows) before the API decides what it asks.
  await expect(conversation.history.getByRole("group", { name: "Approval for write_file" })).toBeVisible();
  await api.decideUntilIdle(created.id, "approve");

  const changes = conversation.history.getByRole("button", { name: "2 files changed +2 −1" });
  await changes.click();
  const turnDiff = conversation.history.getByRole("group", { name: "Diff of the turn's changes" });
  // The file list: each changed file with its status and its own +/−, leading to its part of the diff.
  const fileList = conversation.history.getByRole("list", { name: "Changed files" });
  await expect(fileList.getByRole("listitem")).toHaveText([/^A\s*added\.txt\s*\+1\s*−0$/, /^M\s*notes\.txt\s*\+1\s*−1$/]);
  await expect(fileList.getByRole("listitem").first().getByLabel("added")).toBeVisible();
  await expect(fileList.getByRole("listitem").last().getByLabel("modified")).toBeVisible();
  await fileList.getByRole("button", { name: "notes.txt", exact: true }).click();
  await expect(turnDiff.getByRole("region", { name: "Changes to notes.txt" })).toBeFocused();
  await expect(turnDiff.getByRole("region", { name: "Changes to added.txt" })).toContainText("added");
  await expect(turnDiff.getByRole("region", { name: "Changes to notes.txt" }).locator("header")).toContainText("modified+1−1");
  await expect(turnDiff).not.toContainText("index ");
  await expect(turnDiff).not.toContainText("diff --git");
  await turnDiff.getByRole("radio", { name: "Split" }).click();
  await expect(turnDiff.locator("table.diff-split").first()).toBeVisible();
  await turnDiff.scrollIntoViewIfNeeded();
  await app.page.screenshot({ path: "/tmp/shots-26/after-diff-desktop-light.png" });
  fs.rmSync(cwd, { recursive: true, force: true });
});
