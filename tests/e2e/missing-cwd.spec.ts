import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConversationPage, expect, test, unique } from "./support/fixtures";

test("a conversation whose working directory is gone says so and takes a new one before sending", async ({ app, api }) => {
  const project = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-e2e-project-"));
  const created = await api.createConversation(unique("moved"), { cwd: project });
  await api.waitUntilIdle(created.id);
  fs.rmSync(project, { recursive: true, force: true });

  const conversation = await ConversationPage.open(app.page, created.id);
  const banner = app.page.getByRole("alert").filter({ hasText: "parts of it are missing on this machine" });
  await expect(banner).toContainText(project);
  await expect(conversation.composer).toBeDisabled();

  const replacement = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-e2e-project-"));
  await banner.getByRole("textbox", { name: /Working directory/ }).fill(replacement);
  await banner.getByRole("button", { name: "Use this directory" }).click();
  await expect(banner).toBeHidden();
  await expect(conversation.composer).toBeEnabled();
  await conversation.send("back in business");
  await expect(conversation.lastReply).toHaveText("You said: back in business");
  expect((await api.getConversation(created.id)).cwd).toBe(replacement);
  fs.rmSync(replacement, { recursive: true, force: true });
});
