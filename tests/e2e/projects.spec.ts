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
  await expect(recents.getByText("Recent with the default agent on local")).toBeVisible();
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

test("the picker puts the agent's recent projects first, and browses folders with the keyboard: Enter opens, ← goes up, Use this folder confirms", async ({ app, api }) => {
  const root = folder("browse");
  for (const name of ["alpha", "beta/inner", ".hidden"]) fs.mkdirSync(path.join(root, name), { recursive: true });
  const reviewed = folder("reviewed");
  await api.waitUntilIdle((await api.createConversation(unique("as reviewer"), { cwd: reviewed, agent: "reviewer" })).id);
  await api.waitUntilIdle((await api.createConversation(unique("as default"), { cwd: root })).id);

  const listed = await api.get(`/api/folders?machine=local&path=${encodeURIComponent(root)}`);
  expect(listed.status).toBe(200);
  expect(listed.body).toEqual({ machine: "local", path: root, parent: path.dirname(root), folders: [{ name: "alpha", path: path.join(root, "alpha") }, { name: "beta", path: path.join(root, "beta") }], truncated: false });
  expect((await api.get("/api/folders?machine=local&path=relative")).status).toBe(400);
  expect((await api.get("/api/folders?machine=local&path=%2Fno%2Fsuch%2Ffolder")).status).toBe(422);
  expect((await api.get("/api/folders?machine=nowhere")).status).toBe(404);

  const newChat = await app.sidebar.newChat();
  await app.page.getByRole("combobox", { name: "Agent" }).click();
  await app.page.getByRole("option", { name: /^reviewer/ }).click();
  const pill = app.page.getByRole("button", { name: /^Working directory: / });
  await pill.click();
  const recents = app.page.getByRole("group", { name: "Recent projects" });
  await expect(recents.getByText("Recent with reviewer on local")).toBeVisible();
  await expect(recents.getByRole("button").first()).toContainText(reviewed);
  await expect(recents.getByText("Other recent projects")).toBeVisible();
  await app.page.screenshot({ path: "test-results/screens/projects-agent-recents.png" });

  await app.page.getByRole("button", { name: "Browse folders…" }).click();
  const browser = app.page.getByRole("group", { name: "Folders on local" });
  // It starts at the chosen project: the last used, here the browse root.
  await expect(browser.getByTestId("browsed-folder")).toHaveText(root);
  const folders = browser.getByRole("list", { name: `Folders in ${root}` });
  await expect(folders.getByRole("button")).toHaveText(["alpha", "beta"]);
  await folders.getByRole("button", { name: "alpha" }).focus();
  await app.page.keyboard.press("ArrowDown");
  await expect(folders.getByRole("button", { name: "beta" })).toBeFocused();
  await app.page.keyboard.press("Enter");
  const field = app.page.getByRole("textbox", { name: "Working directory" });
  await expect(browser.getByTestId("browsed-folder")).toHaveText(path.join(root, "beta"));
  await expect(field).toHaveValue(path.join(root, "beta"));
  await expect(app.page.getByRole("status").filter({ hasText: "Folder found. Enter to use it." })).toBeVisible();
  await expect(browser.getByRole("button", { name: "inner" })).toBeFocused();
  await app.page.screenshot({ path: "test-results/screens/projects-browser.png" });
  await app.page.keyboard.press("ArrowLeft");
  await expect(browser.getByTestId("browsed-folder")).toHaveText(root);
  await browser.getByRole("button", { name: "beta" }).click();
  await browser.getByRole("button", { name: "inner" }).click();
  await expect(browser.getByText("No folders in here.")).toBeVisible();
  await expect(browser.getByRole("button", { name: "Use this folder" })).toBeFocused();
  await app.page.keyboard.press("Enter");
  await expect(browser).toBeHidden();
  await expect(pill).toHaveAttribute("aria-label", `Working directory: ${path.join(root, "beta", "inner")}`);

  const conversation = await newChat.start(unique("in inner"));
  expect((await api.getConversation(conversation.id)).cwd).toBe(path.join(root, "beta", "inner"));
});

test("a project folder deleted since is never where a new chat starts, whether it was the last used or the last picked", async ({ app, api }) => {
  const kept = folder("kept");
  const gone = folder("gone");
  await api.waitUntilIdle((await api.createConversation(unique("in kept"), { cwd: kept })).id);
  await api.waitUntilIdle((await api.createConversation(unique("in gone"), { cwd: gone })).id);
  const pill = app.page.getByRole("button", { name: /^Working directory: / });
  await app.sidebar.newChat();
  await expect(pill).toHaveAttribute("aria-label", `Working directory: ${gone}`);
  // Picked in this browser, then deleted outside Atrium.
  await pill.click();
  await app.page.getByRole("group", { name: "Recent projects" }).getByRole("button").filter({ hasText: gone }).click();
  fs.rmSync(gone, { recursive: true });

  await visit(app.page, "/new");
  await expect(pill).toHaveAttribute("aria-label", `Working directory: ${kept}`);
  await pill.click();
  await expect(app.page.getByRole("group", { name: "Recent projects" }).getByRole("button").filter({ hasText: gone })).toHaveCount(0);
});
