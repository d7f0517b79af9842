import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConversationPage, expect, test, unique } from "./support/fixtures";
import { E2E_TOKEN } from "./support/environment";
import { visit } from "./support/pages";

const folder = (label: string) => fs.mkdtempSync(path.join(os.tmpdir(), `atrium-rules-${label}-`));
const shell = (command: string) => `[[tool:shell ${JSON.stringify({ command })}]]`;

test("“Always allow in this project” teaches a command prefix: later matching calls there run without asking, say so, and the rule can be removed in Settings", async ({ app, api }) => {
  const project = folder("taught");
  const created = await api.createConversation(`${unique("teach")} ${shell("echo first")}`, { cwd: project });
  const conversation = await ConversationPage.open(app.page, created.id);
  const prompt = conversation.history.getByRole("group", { name: "Approval for shell" });
  await prompt.getByRole("button", { name: "Always allow in this project" }).click();
  const prefix = prompt.getByRole("textbox", { name: "Allow shell commands in this project that start with" });
  await expect(prefix).toHaveValue("echo");
  await prompt.getByRole("button", { name: "Allow and run" }).click();
  await expect(conversation.lastReply).toHaveText("Tool shell returned: first");
  await conversation.expectIdle();

  // The rule answers for the owner (the owner applies it, not this page): no prompt, and the card names the rule.
  await conversation.send(shell("echo second"));
  await expect(conversation.lastReply).toHaveText("Tool shell returned: second");
  const cards = conversation.history.locator('[data-item-kind="tool_call"]');
  await expect(cards.last()).toContainText("allowed by rule: echo");
  await expect(cards.first()).not.toContainText("allowed by rule");

  // A command that chains another still asks, and so does the same command in another project.
  await conversation.send(shell("echo third; echo more"));
  await expect(prompt).toBeVisible();
  await prompt.getByRole("button", { name: "Deny" }).click();
  await conversation.expectIdle();
  const elsewhere = await api.createConversation(`${unique("elsewhere")} ${shell("echo fourth")}`, { cwd: folder("other") });
  const other = await ConversationPage.open(app.page, elsewhere.id);
  await expect(other.history.getByRole("group", { name: "Approval for shell" })).toBeVisible();
  await other.history.getByRole("button", { name: "Deny" }).click();

  const listed = await api.get(`/api/approval-rules?path=${encodeURIComponent(project)}`);
  expect(listed.body).toEqual({ rules: [expect.objectContaining({ machine: "local", path: project, tool: "shell", commandPrefix: "echo" })], nextCursor: null });

  await visit(app.page, "/settings/approvals");
  const rules = app.page.getByRole("group", { name: `Rules for ${path.basename(project)}` });
  await expect(rules).toContainText("shell commands starting “echo”");
  await rules.getByRole("button", { name: "Remove the rule for echo" }).click();
  await expect(rules).toBeHidden();
  expect((await api.get(`/api/approval-rules?path=${encodeURIComponent(project)}`)).body).toEqual({ rules: [], nextCursor: null });

  const again = await api.createConversation(`${unique("asks again")} ${shell("echo fifth")}`, { cwd: project });
  const asking = await ConversationPage.open(app.page, again.id);
  await expect(asking.history.getByRole("group", { name: "Approval for shell" })).toBeVisible();
  await asking.history.getByRole("button", { name: "Deny" }).click();
});

test("a rule for a whole tool; a remember that does not fit the approval is refused", async ({ app, api, request }) => {
  const project = folder("tool");
  const write = (name: string) => `[[tool:write_file ${JSON.stringify({ path: name, content: "x" })}]]`;
  const created = await api.createConversation(`${unique("whole tool")} ${write("a.txt")}`, { cwd: project });
  const conversation = await ConversationPage.open(app.page, created.id);
  const prompt = conversation.history.getByRole("group", { name: "Approval for write_file" });
  await expect(prompt).toBeVisible();

  const pending = (await api.get(`/api/approvals?status=pending`)).body as { approvals: Array<{ id: string; conversationId: string }> };
  const approval = pending.approvals.find((candidate) => candidate.conversationId === created.id)!;
  const headers = { authorization: `Bearer ${E2E_TOKEN}` };
  const wrongTool = await request.post(`/api/approvals/${approval.id}`, { headers, data: { decision: "approve", remember: { tool: "shell" } } });
  expect(wrongTool.status()).toBe(400);
  const prefixOnFile = await request.post(`/api/approvals/${approval.id}`, { headers, data: { decision: "approve", remember: { tool: "write_file", commandPrefix: "x" } } });
  expect(prefixOnFile.status()).toBe(400);

  await prompt.getByRole("button", { name: "Always allow in this project" }).click();
  await expect(prompt).toContainText("Allow every write_file call in this project without asking.");
  await prompt.getByRole("button", { name: "Allow and run" }).click();
  await expect(conversation.lastReply).toContainText("Tool write_file returned");
  await conversation.send(write("b.txt"));
  await expect(conversation.history.locator('[data-item-kind="tool_call"]').last()).toContainText("allowed by rule: write_file");
  expect(fs.existsSync(path.join(project, "b.txt"))).toBe(true);
});

/** The folder playwright.config.ts gives the "files" MCP server (the real server-filesystem). */
function mcpNotesFolder(): string {
  const config = JSON.parse(fs.readFileSync(path.join(process.env.ATRIUM_E2E_HOME!, "config.json"), "utf8")) as { mcpServers: { files: { args: string[] } } };
  return config.mcpServers.files.args[1];
}

test("a rule for an MCP tool: “Always allow in this project” on an MCP call lets its next calls there run, and says so", async ({ app, api }) => {
  const project = folder("mcp");
  const notes = mcpNotesFolder();
  fs.writeFileSync(path.join(notes, `rules-${path.basename(project)}.txt`), "listed\n");
  const list = `[[tool:mcp__files__list_directory ${JSON.stringify({ path: notes })}]]`;
  const created = await api.createConversation(`${unique("mcp rule")} ${list}`, { cwd: project });
  const conversation = await ConversationPage.open(app.page, created.id);
  const prompt = conversation.history.getByRole("group", { name: "Approval for mcp__files__list_directory" });
  await expect(prompt).toBeVisible();
  await prompt.getByRole("button", { name: "Always allow in this project" }).click();
  await expect(prompt).toContainText("Allow every mcp__files__list_directory call in this project without asking.");
  await prompt.getByRole("button", { name: "Allow and run" }).click();
  await expect(conversation.lastReply).toContainText(`rules-${path.basename(project)}.txt`);

  await conversation.send(list);
  const card = conversation.history.locator('[data-item-kind="tool_call"]').last();
  await expect(card).toContainText("allowed by rule: mcp__files__list_directory");
  await conversation.expectIdle();
  await expect(conversation.history.getByRole("group", { name: /^Approval for / })).toHaveCount(0);

  // The rule is the project's: the same call in another folder still asks.
  const elsewhere = await api.createConversation(`${unique("mcp elsewhere")} ${list}`, { cwd: folder("mcp-other") });
  const other = await ConversationPage.open(app.page, elsewhere.id);
  const asking = other.history.getByRole("group", { name: "Approval for mcp__files__list_directory" });
  await expect(asking).toBeVisible();
  await asking.getByRole("button", { name: "Deny" }).click();
  await other.expectIdle();
});
