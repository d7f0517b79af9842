import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test, unique } from "./support/fixtures";
import { visit } from "./support/pages";

const folder = (label: string) => fs.mkdtempSync(path.join(os.tmpdir(), `atrium-project-${label}-`));

interface ProjectsBody {
  projects: Array<{ machine: string; path: string; name: string; lastUsedAt: string }>;
  nextCursor: string | null;
}

test("GET /api/projects lists the folders conversations were held in, the last used first", async ({ api }) => {
  const older = folder("older");
  const newer = folder("newer");
  await api.waitUntilIdle((await api.createConversation(unique("in older"), { cwd: older })).id);
  await api.waitUntilIdle((await api.createConversation(unique("in newer"), { cwd: newer })).id);

  const { status, body } = await api.get("/api/projects?machine=local");
  expect(status).toBe(200);
  const { projects, nextCursor } = body as ProjectsBody;
  expect(nextCursor).toBeNull();
  expect(projects[0]).toEqual({ machine: "local", path: newer, name: path.basename(newer), lastUsedAt: expect.any(String) });
  expect(projects[1]).toMatchObject({ machine: "local", path: older, name: path.basename(older) });
  expect(projects.filter((project) => project.path === newer)).toHaveLength(1);
  expect((await api.get("/api/projects?machine=..%2Fetc")).status).toBe(400);
  expect((await api.get("/api/projects?machine=elsewhere")).body).toEqual({ projects: [], nextCursor: null });
});

test("the new chat offers recent projects first, checks a typed folder, remembers the choice, and the header shows the project", async ({ app, api }) => {
  const recent = folder("recent");
  await api.waitUntilIdle((await api.createConversation(unique("recent project"), { cwd: recent })).id);
  const newChat = await app.sidebar.newChat();
  const pill = app.page.getByRole("button", { name: /^Working directory: / });
  // The last used project is the starting point, not the server's own folder.
  await expect(pill).toHaveAttribute("aria-label", `Working directory: ${recent}`);

  await pill.click();
  const recents = app.page.getByRole("group", { name: "Recent projects" });
  await expect(recents.getByRole("button").first()).toContainText(path.basename(recent));
  await expect(recents.getByRole("button", { pressed: true })).toContainText(recent);
  const field = app.page.getByRole("textbox", { name: "Working directory" });
  await field.fill("/no/such/folder/anywhere");
  await expect(app.page.getByRole("status").filter({ hasText: "No folder at that path on this machine." })).toBeVisible();
  await field.press("Enter");
  await expect(field).toBeVisible();

  const chosen = folder("chosen");
  await field.fill(chosen);
  await expect(app.page.getByRole("status").filter({ hasText: "Folder found. Enter to use it." })).toBeVisible();
  await field.press("Enter");
  await expect(field).toBeHidden();
  await expect(pill).toHaveAttribute("aria-label", `Working directory: ${chosen}`);

  const conversation = await newChat.start(unique("in chosen"));
  expect((await api.getConversation(conversation.id)).cwd).toBe(chosen);
  const project = app.page.getByRole("banner").getByRole("note", { name: `Project: ${path.basename(chosen)} (${chosen}) on local` });
  await expect(project).toHaveText(`${path.basename(chosen)}· local`);
  await expect(project).toHaveAttribute("title", `${chosen} on local`);

  await visit(app.page, "/new");
  await expect(pill).toHaveAttribute("aria-label", `Working directory: ${chosen}`);
  await pill.click();
  await recents.getByRole("button").filter({ hasText: recent }).click();
  await expect(pill).toHaveAttribute("aria-label", `Working directory: ${recent}`);
});

test("a folder that is gone says so in sentences, and choosing another clears the error", async ({ app }) => {
  const newChat = await app.sidebar.newChat();
  const pill = app.page.getByRole("button", { name: /^Working directory: / });
  await pill.click();
  await app.page.getByRole("textbox", { name: "Working directory" }).fill("/no/such/folder/anywhere");
  await app.page.keyboard.press("Escape");
  await newChat.composer.fill(unique("nowhere"));
  await newChat.composer.press("Enter");
  const alert = app.page.getByRole("alert").filter({ hasText: "The conversation was not created." });
  await expect(alert).toContainText("/no/such/folder/anywhere does not exist. Your message is kept below.");
  await pill.click();
  await app.page.getByRole("group", { name: "Recent projects" }).getByRole("button").first().click();
  await expect(alert).toBeHidden();
});
