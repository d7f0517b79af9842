import type { Locator, Page } from "@playwright/test";
import { ConversationPage, expect, test, unique } from "./support/fixtures";
import { visit } from "./support/pages";
import { DEVICES, PHONE_VIEWPORT } from "./support/environment";

const SHELL = '[[tool:shell {"command":"echo hi"}]]';

/** Where the element is, once it is laid out (after a navigation, e.g. a fork, the new page's may still be on its way). */
async function box(locator: Locator) {
  let found: Awaited<ReturnType<Locator["boundingBox"]>> = null;
  await expect
    .poll(async () => {
      found = await locator.boundingBox({ timeout: 1000 }).catch(() => null);
      return found !== null;
    }, { message: "the element to be laid out" })
    .toBe(true);
  return found!;
}

const overlaps = (a: { x: number; y: number; width: number; height: number }, b: typeof a) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

test("the browser tab's title follows a rename, here and in another tab", async ({ app, api }) => {
  const created = await api.createConversation(unique("old title"));
  await api.waitUntilIdle(created.id);
  const conversation = await ConversationPage.open(app.page, created.id);
  await expect(app.page).toHaveTitle(`${created.title} · Atrium`);
  const other = await app.page.context().newPage();
  await ConversationPage.open(other, created.id);

  await conversation.menuAction("Rename");
  const renamed = unique("new title");
  await app.page.getByRole("textbox", { name: "Conversation title" }).fill(renamed);
  await app.page.getByRole("textbox", { name: "Conversation title" }).press("Enter");
  await expect(app.page).toHaveTitle(`${renamed} · Atrium`);
  await expect(other).toHaveTitle(`${renamed} · Atrium`);
  await other.close();
});

/** Every toast on the page now: each is checked against the composer, not only the newest. */
async function expectToastsClearOfComposer(page: Page, conversation: ConversationPage, newest: string | RegExp) {
  const toasts = page.locator("[data-sonner-toast]");
  await expect(toasts.filter({ hasText: newest })).toBeVisible();
  // Sonner slides a toast in: measure it where it comes to rest.
  await expect(toasts.filter({ hasText: newest })).toHaveAttribute("data-mounted", "true");
  const send = await box(page.getByRole("button", { name: "Send", exact: true }));
  const composer = await box(conversation.composer);
  // Measured in one go: a toast may leave between two separate looks.
  const shown = await toasts.evaluateAll((elements) =>
    elements
      .filter((element) => element.getAttribute("data-visible") !== "false")
      .map((element) => {
        const { x, y, width, height } = element.getBoundingClientRect();
        return { text: element.textContent ?? "", x, y, width, height };
      }),
  );
  expect(shown.length).toBeGreaterThan(0);
  for (const toast of shown) {
    expect(overlaps(toast, send), `toast “${toast.text}” over the Send button`).toBe(false);
    expect(overlaps(toast, composer), `toast “${toast.text}” over the composer`).toBe(false);
  }
}

for (const [device, viewport] of DEVICES) {
  test.describe(`on a ${device}`, () => {
    test.use({ viewport });
    test("the toasts after compact, restart, archive and fork never cover the composer or its Send button", async ({ app, api }) => {
      const created = await api.createConversation(unique("toast"));
      await api.waitUntilIdle(created.id);
      await api.sendMessage(created.id, "the second message");
      await api.waitUntilIdle(created.id);
      const conversation = await ConversationPage.open(app.page, created.id);

      await conversation.send("/compact");
      await expectToastsClearOfComposer(app.page, conversation, /^(Context compacted|Not compacted)/);

      const second = conversation.userMessages.filter({ hasText: "the second message" });
      await second.hover();
      await second.getByRole("button", { name: "Restart from here" }).click();
      await app.page.getByRole("alertdialog", { name: "Restart from here" }).getByRole("button", { name: "Restart", exact: true }).click();
      await expect(app.page).not.toHaveURL(new RegExp(created.id));
      await conversation.expectLive();
      await expectToastsClearOfComposer(app.page, conversation, "Restarted in a new conversation");

      await conversation.menuAction("Archive");
      await expectToastsClearOfComposer(app.page, conversation, "Conversation archived");

      await conversation.menuAction("Fork");
      await expectToastsClearOfComposer(app.page, conversation, "Forked: you are now in the copy");
    });
  });
}

test.describe("at phone width", () => {
  test.use({ viewport: PHONE_VIEWPORT });
  test("a running conversation keeps a readable title beside its status", async ({ app, api }) => {
    const created = await api.createConversation(`Refactor the session loader ${unique("")} [[delay:300]] [[stream:100]]`);
    const conversation = await ConversationPage.open(app.page, created.id);
    await expect(app.page.getByRole("banner").getByLabel("Status: Running")).toBeVisible();
    expect((await box(conversation.title)).width).toBeGreaterThanOrEqual(100);
    await conversation.interruptButton.click();
    await conversation.expectIdle();
  });
});

test("signing out in one tab is noticed by the others, with a link to sign in again", async ({ app }) => {
  const other = await app.page.context().newPage();
  await visit(other, "/settings");
  await app.sidebar.signOut();
  const notice = other.getByRole("alert").filter({ hasText: "You signed out in another tab." });
  await expect(notice).toBeVisible();
  await notice.getByRole("link", { name: "Sign in again" }).click();
  await expect(other).toHaveURL(/\/signin$/);
  await other.close();
});

test("the theme switch says which theme is on, in words", async ({ app }) => {
  const toggle = app.page.getByRole("complementary", { name: "Sidebar" }).getByRole("button", { name: /theme \(switch to/ });
  await expect(toggle).toHaveText("System theme");
  await toggle.click();
  await expect(toggle).toHaveText("Light theme");
  await toggle.click();
  await expect(toggle).toHaveText("Dark theme");
  await expect(app.page.locator("html")).toHaveClass(/dark/);
});

test("a waiting message's buttons say what they do, and a withdrawal can be undone", async ({ app, api }) => {
  const created = await api.createConversation(`${unique("undo")} [[delay:400]] [[stream:200]]`);
  const conversation = await ConversationPage.open(app.page, created.id);
  await conversation.expectRunning();
  await conversation.send("take me back", "Queue");
  const row = conversation.waitingMessage("take me back");
  for (const label of ["Edit", "Steer now", "Jump now", "Withdraw"]) await expect(row.getByRole("button", { name: label })).toHaveText(label);

  await row.getByRole("button", { name: "Withdraw" }).click();
  await expect(row).toHaveCount(0);
  await app.page.getByRole("button", { name: "Undo" }).click();
  await expect(conversation.waitingMessage("take me back")).toContainText("queued");
  await conversation.interruptButton.click();
  await conversation.expectIdle();
});

async function archived(api: import("./support/api").AtriumApi, text: string, patch: Record<string, unknown> = {}) {
  const created = await api.createConversation(text);
  await api.waitUntilIdle(created.id);
  await api.patchConversation(created.id, { archived: true, ...patch });
  return created;
}

async function headerLefts(page: Page) {
  return page.getByRole("table", { name: "Archived conversations" }).getByRole("columnheader").evaluateAll((cells) => cells.map((cell) => Math.round(cell.getBoundingClientRect().left)));
}

test("the archive keeps its columns still when rows are selected, keeps its sort on return, and warns before a bulk delete skips a protected one", async ({ app, api }) => {
  const tag = unique("stable");
  const kept = await archived(api, `${tag} a keep`, { protected: true });
  await archived(api, `${tag} b plain`);
  await app.archive.open();
  await app.page.getByRole("searchbox", { name: "Search the archive" }).fill(tag);
  await expect(app.archive.table.getByRole("row")).toHaveCount(3);
  await app.page.getByRole("button", { name: /Sort by title/ }).click();
  const titleHeader = app.archive.table.getByRole("columnheader", { name: /title/i });
  await expect(titleHeader).toHaveAttribute("aria-sort", "ascending");

  const tableTop = (await box(app.archive.table)).y;
  const lefts = await headerLefts(app.page);
  await app.page.getByRole("checkbox", { name: "Select all on this page" }).click();
  await expect(app.archive.selectionToolbar).toContainText("2 selected");
  expect((await box(app.archive.table)).y).toBe(tableTop);
  expect(await headerLefts(app.page)).toEqual(lefts);

  await app.archive.selectionToolbar.getByRole("button", { name: "Delete" }).click();
  const dialog = app.page.getByRole("alertdialog");
  await expect(dialog.getByRole("note")).toHaveText(`“${kept.title}” is protected and will be kept. Unprotect it from its menu to delete it.`);
  await dialog.getByRole("button", { name: "Cancel" }).click();

  await visit(app.page, "/settings");
  await app.archive.open();
  await expect(titleHeader).toHaveAttribute("aria-sort", "ascending");
});

test("after approving with the keyboard, focus moves to the next pending approval, then back to the composer", async ({ app, api }) => {
  const first = await api.createConversation(`${unique("focus one")} ${SHELL}`);
  const second = await api.createConversation(`${unique("focus two")} ${SHELL}`);
  await visit(app.page, "/approvals");
  const pending = app.page.getByRole("region", { name: "Waiting for you" });
  await expect(pending.getByRole("group", { name: "Approval for shell" })).toHaveCount(2);
  await pending.getByRole("button", { name: "Approve" }).first().focus();
  await app.page.keyboard.press("Enter");
  await expect(pending.getByRole("group", { name: "Approval for shell" })).toHaveCount(1);
  await expect(pending.getByRole("button", { name: "Approve" })).toBeFocused();
  await app.page.keyboard.press("Enter");
  await expect(pending.getByRole("group", { name: "Approval for shell" })).toHaveCount(0);
  await api.waitUntilIdle(first.id);
  await api.waitUntilIdle(second.id);

  const inline = await api.createConversation(`${unique("focus inline")} ${SHELL}`);
  const conversation = await ConversationPage.open(app.page, inline.id);
  const prompt = conversation.history.getByRole("group", { name: "Approval for shell" });
  await prompt.getByRole("button", { name: "Approve" }).focus();
  await app.page.keyboard.press("Enter");
  await expect(conversation.composer).toBeFocused();
  await expect(conversation.lastReply).toHaveText("Tool shell returned: hi");
});
