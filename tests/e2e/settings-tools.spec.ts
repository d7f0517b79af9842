import { E2E_TOKEN } from "./support/environment";
import { expect, test } from "./support/fixtures";
import { visit } from "./support/pages";

// playwright.config.ts configures two MCP servers: "files" (the real server-filesystem) and "broken" (exits at start).
test("Settings → Tools shows a connected and a failed MCP server, the built-in tools and their approval", async ({ app }) => {
  await visit(app.page, "/");
  await app.page.getByRole("link", { name: "Tools" }).click();
  await expect(app.page).toHaveURL(/\/settings\/tools$/);
  const servers = app.page.getByRole("table", { name: "MCP servers" });
  const files = servers.getByRole("row").filter({ hasText: "files" });
  await expect(files).toContainText("connected");
  await expect(files).toContainText("stdio");
  await expect(files.getByRole("cell").nth(3)).toHaveText(/^[1-9]\d*$/);
  await expect(files).toContainText("ask");
  const broken = servers.getByRole("row").filter({ hasText: "broken" });
  await expect(broken).toContainText("failed");
  await expect(broken).toContainText("broken on purpose");

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
      expect.objectContaining({ name: "broken", status: "failed", toolCount: 0 }),
    ]),
  );
  expect(body.tools).toEqual(expect.arrayContaining([expect.objectContaining({ name: "shell", source: "builtin", approval: "ask" })]));
  expect(body.tools).toEqual(expect.arrayContaining([expect.objectContaining({ name: "mcp__files__list_directory", source: "mcp", server: "files", approval: "ask" })]));
  expect(Array.isArray(body.skills)).toBe(true);
  const bad = await request.get("/api/tools?cwd=relative/path", { headers: { authorization: `Bearer ${E2E_TOKEN}` } });
  expect(bad.status()).toBe(400);
  expect((await bad.json()).error.code).toBe("bad_request");
});
