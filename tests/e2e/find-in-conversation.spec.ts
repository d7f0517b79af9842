import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Page } from "@playwright/test";
import { expect, test, unique } from "./support/fixtures";
import { ConversationPage } from "./support/pages";

/** The text of the current match and the number of other matches marked, from the CSS highlights. */
function marks(page: Page) {
  return page.evaluate(() => {
    const current = CSS.highlights.get("atrium-find-current");
    const range = current ? ([...current][0] as Range) : null;
    const history = document.querySelector('[role="log"][aria-label="Conversation history"]')!.getBoundingClientRect();
    const box = range?.getBoundingClientRect();
    return {
      current: range?.toString() ?? null,
      others: CSS.highlights.get("atrium-find")?.size ?? 0,
      inView: box ? box.top >= history.top && box.bottom <= history.bottom && box.height > 0 : false,
      inToolOutput: range ? Boolean(range.startContainer.parentElement?.closest("pre[aria-label$=' output']")) : false,
    };
  });
}

test("find counts every match, in messages and tool output, and moves between them with the keyboard", async ({ app, api }) => {
  const { page } = app;
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-e2e-find-"));
  try {
    fs.writeFileSync(path.join(folder, "notes.txt"), "first Wombat\nsecond wombat, third WOMBAT\n");
    const created = await api.createConversation(`${unique("find")} wombat and wombat [[tool:read_file {"path":"notes.txt"}]]`, { cwd: folder });
    await api.waitUntilIdle(created.id);
    const expected = (await api.get(`/api/conversations/${created.id}/find?q=wombat`)).body as { total: number; hits: Array<{ kind: string; matches: number }> };
    // Matches, not messages: two in the message, three in the tool's output (and any the reply repeats).
    expect(expected.hits.find((hit) => hit.kind === "tool_call")?.matches).toBe(3);
    expect(expected.hits.find((hit) => hit.kind === "user_message")?.matches).toBe(2);
    expect(expected.total).toBeGreaterThan(expected.hits.length);

    const conversation = await ConversationPage.open(page, created.id);
    // The tool card starts closed: its output is not on the page until find needs it.
    await expect(conversation.history.locator("pre[aria-label='read_file output']")).toHaveCount(0);
    await conversation.history.focus();
    await page.keyboard.press("Control+f");
    const bar = page.getByRole("search", { name: "Find in conversation" });
    const field = bar.getByRole("textbox", { name: "Find in conversation" });
    await expect(field).toBeFocused();
    await field.fill("WOMBAT");
    const status = bar.getByRole("status");
    await expect(status).toHaveText(`1 of ${expected.total}`);
    await expect.poll(async () => (await marks(page)).current?.toLowerCase()).toBe("wombat");

    // Enter goes up through every match, one at a time, into the tool's output (which opens) and the message above.
    const seen: Array<{ inToolOutput: boolean }> = [];
    for (let position = 1; position <= expected.total; position += 1) {
      await expect(status).toHaveText(`${position} of ${expected.total}`);
      await expect.poll(async () => (await marks(page)).inView).toBe(true);
      const state = await marks(page);
      expect(state.current?.toLowerCase()).toBe("wombat");
      seen.push(state);
      await field.press("Enter");
    }
    // Past the oldest match it wraps to the newest; Shift+Enter goes back down.
    await expect(status).toHaveText(`1 of ${expected.total}`);
    expect(seen.filter((state) => state.inToolOutput)).toHaveLength(3);
    await expect(conversation.history.locator("pre[aria-label='read_file output']")).toBeVisible();
    await field.press("Shift+Enter");
    await expect(status).toHaveText(`${expected.total} of ${expected.total}`);
    await field.press("Shift+Enter");
    await expect(status).toHaveText(`${expected.total - 1} of ${expected.total}`);
    // The other matches in view are marked too, apart from the current one.
    await expect.poll(async () => (await marks(page)).others).toBeGreaterThan(0);

    // Inside words, like a browser's find; nothing found is said plainly.
    await field.fill("ombat");
    await expect(status).toHaveText(`1 of ${expected.total}`);
    await field.fill("giraffe");
    await expect(status).toHaveText("No matches");
    await expect.poll(async () => (await marks(page)).current).toBeNull();

    // Escape closes, takes the marks away and puts focus back on the find button.
    await field.press("Escape");
    await expect(bar).toBeHidden();
    await expect(page.getByRole("banner").getByRole("button", { name: "Find in conversation" })).toBeFocused();
    expect(await page.evaluate(() => (CSS.highlights.get("atrium-find")?.size ?? 0) + (CSS.highlights.get("atrium-find-current")?.size ?? 0))).toBe(0);
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
});

test("a sidebar search hit opens the conversation at the match, from the keyboard, in a second tab too", async ({ app, api, context }) => {
  const { page, sidebar } = app;
  const word = `kinkajou${Math.random().toString(36).slice(2, 7)}`;
  const created = await api.createConversation(`${unique("jump")} the ${word} is here`);
  await api.waitUntilIdle(created.id);
  const other = await context.newPage();
  await other.goto("/");

  await sidebar.search(word);
  const result = sidebar.conversation(created.title);
  await expect(result).toBeVisible();
  await expect(result).toHaveAttribute("href", `/c/${created.id}?find=${word}`);
  await result.focus();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/c/${created.id}\\?find=${word}$`));
  const bar = page.getByRole("search", { name: "Find in conversation" });
  await expect(bar.getByRole("textbox")).toHaveValue(word);
  await expect(bar.getByRole("status")).toHaveText(/^1 of \d+$/);
  await expect.poll(async () => (await marks(page)).current).toBe(word);
  await expect(page.locator("[data-search-hit]")).toContainText(word);
  // The other tab's sidebar was not touched by this tab's search.
  await expect(other.getByRole("searchbox", { name: "Search conversations" })).toHaveValue("");
});
