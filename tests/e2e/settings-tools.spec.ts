import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { E2E_TOKEN } from "./support/environment";
import { ConversationPage, expect, test, unique } from "./support/fixtures";
import { visit } from "./support/pages";

/** A skill in the e2e server's $ATRIUM_HOME (playwright.config.ts made it; workers inherit the variable). */
function writeHomeSkill(name: string, description: string): void {
  const folder = path.join(process.env.ATRIUM_E2E_HOME!, "skills", name);
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folder, "SKILL.md"), `---\nname: ${name}\ndescription: ${description}\n---\nSteps.\n`);
}

// playwright.config.ts configures three MCP servers: "files" (the real server-filesystem), "broken" (exits at start)
// and "remote" (on a machine that never links).
test("Settings → Tools shows a connected and a failed MCP server, the built-in tools and their approval", async ({ app }) => {
  await visit(app.page, "/");
  await app.page.getByRole("link", { name: "Settings" }).click();
  await app.page.getByRole("navigation", { name: "Settings sections" }).getByRole("link", { name: "Tools" }).click();
  await expect(app.page).toHaveURL(/\/settings\/tools$/);
  const sandbox = app.page.getByRole("definition").filter({ hasText: /^sandboxed$/ });
  await expect(sandbox).toBeVisible();
  await expect(app.page.getByText("bubblewrap (bwrap) found")).toBeVisible();
  const servers = app.page.getByRole("table", { name: "MCP servers" });
  const files = servers.getByRole("row").filter({ hasText: "files" });
  await expect(files).toContainText("connected");
  await expect(files).toContainText("stdio");
  await expect(files.getByRole("cell").nth(3)).toHaveText(/^[1-9]\d*$/);
  await expect(files).toContainText("ask");
  const broken = servers.getByRole("row").filter({ hasText: "broken" });
  await expect(broken).toContainText("failed");
  await expect(broken).toContainText("broken on purpose");
  const remote = servers.getByRole("row").filter({ hasText: "remote" });
  await expect(remote).toContainText("on workbench");
  await expect(remote).toContainText('machine "workbench" is not a machine of this gateway');

  const tools = app.page.getByRole("table", { name: "Tools" });
  await expect(tools.getByRole("row").filter({ hasText: /^shell/ })).toContainText("ask");
  await expect(tools.getByRole("row").filter({ hasText: "read_file" }).first()).toContainText("auto");
  await expect(tools.getByRole("row").filter({ hasText: "mcp__files__read_text_file" })).toContainText("MCP · files");
  await app.page.screenshot({ path: "test-results/settings-tools.png", fullPage: true });
});

test("GET /api/tools answers the DESIGN shape", async ({ request }) => {
  const response = await request.get("/api/tools", { headers: { authorization: `Bearer ${E2E_TOKEN}` } });
  expect(response.status()).toBe(200);
  const body = await response.json();
  expect(body.mcpServers).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ name: "files", transport: "stdio", status: "connected", error: null }),
      expect.objectContaining({ name: "broken", status: "failed", toolCount: 0, machine: null }),
      expect.objectContaining({ name: "remote", status: "failed", toolCount: 0, machine: "workbench" }),
    ]),
  );
  expect(body.tools).toEqual(expect.arrayContaining([expect.objectContaining({ name: "shell", source: "builtin", approval: "ask" })]));
  expect(body.tools).toEqual(expect.arrayContaining([expect.objectContaining({ name: "mcp__files__list_directory", source: "mcp", server: "files", approval: "ask" })]));
  expect(Array.isArray(body.skills)).toBe(true);
  expect(body.sandbox).toEqual({ mode: "workspace-write", network: false, writable: [], backend: "bwrap", active: true });
  const bad = await request.get("/api/tools?cwd=relative/path", { headers: { authorization: `Bearer ${E2E_TOKEN}` } });
  expect(bad.status()).toBe(400);
  expect((await bad.json()).error.code).toBe("bad_request");
});

test("the Tools page lists skills, and the context ring shows what the catalogs take", async ({ app, api }) => {
  writeHomeSkill("e2e-release-notes", "Write release notes from the git log.");
  await visit(app.page, "/settings/tools");
  const skills = app.page.getByRole("table", { name: "Skills" });
  await expect(skills.getByRole("row").filter({ hasText: "e2e-release-notes" })).toContainText("Write release notes from the git log.");

  const created = await api.createConversation(unique("catalogs"));
  await api.waitUntilIdle(created.id);
  await ConversationPage.open(app.page, created.id);
  await app.page.getByRole("banner").getByRole("button", { name: /^Context: \d+% used/ }).click();
  const popover = app.page.getByRole("dialog", { name: "Context usage" });
  await expect(popover.getByTestId("context-catalogs")).toHaveText(/^skills [1-9][\d,]* · tools 0$/);
  await popover.screenshot({ path: "test-results/context-catalogs.png" });
});

test("Settings → Tools shows the skills of the project in use, and of another recent project when picked", async ({ app, api }) => {
  const project = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-e2e-skills-"));
  const folder = path.join(project, ".atrium", "skills", "e2e-project-skill");
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folder, "SKILL.md"), "---\nname: e2e-project-skill\ndescription: Only in this project.\n---\nSteps.\n");
  const other = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-e2e-noskills-"));
  await api.waitUntilIdle((await api.createConversation(unique("other project"), { cwd: other })).id);
  await api.waitUntilIdle((await api.createConversation(unique("skills project"), { cwd: project })).id);

  await visit(app.page, "/settings/tools");
  const skills = app.page.getByRole("table", { name: "Skills" });
  await expect(skills.getByRole("row").filter({ hasText: "e2e-project-skill" })).toContainText("Only in this project.");
  const choice = app.page.getByRole("navigation", { name: "Project" });
  await expect(choice.getByRole("link", { name: path.basename(project) })).toHaveAttribute("aria-current", "page");
  await choice.getByRole("link", { name: path.basename(other) }).click();
  await expect(choice.getByRole("link", { name: path.basename(other) })).toHaveAttribute("aria-current", "page");
  await expect(app.page.getByRole("row").filter({ hasText: "e2e-project-skill" })).toHaveCount(0);
});
