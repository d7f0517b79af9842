import { ConversationPage, expect, test, unique } from "./support/fixtures";

const TABLE = [
  "Files:",
  "",
  "| File | Lines | Language | Notes |",
  "|---|---|---|---|",
  "| src/app.js | 120 | JavaScript | the entry point that wires the server, the router and a long tail of middleware |",
  "| lib/engine/conversation-actor.ts | 380 | TypeScript | owner of one conversation |",
  "",
  "```ts",
  "const ls = listFiles(); // ls, l1, 1s",
  "```",
  "",
  "```",
  "plain words",
  "```",
].join("\n");

test.use({ viewport: { width: 390, height: 844 } });

test("markdown tables wrap between words only, code blocks name their language, and code is readable", async ({ app, api }) => {
  const created = await api.createConversation(`${unique("reading")}\n\n${TABLE}`);
  await api.waitUntilIdle(created.id);
  const conversation = await ConversationPage.open(app.page, created.id);
  const reply = conversation.lastReply;
  const table = reply.getByRole("table");
  await expect(table).toBeVisible();

  // A word broken across lines lays out as more than one box.
  const brokenWords = await table.locator("td, th").evaluateAll((cells) =>
    cells.flatMap((cell) => {
      const text = cell.firstChild;
      if (!text || text.nodeType !== Node.TEXT_NODE) return [];
      const content = text.textContent ?? "";
      const broken: string[] = [];
      // Lines may wrap at spaces, hyphens and slashes; never inside the letters between them.
      for (const match of content.matchAll(/[^\s/-]+/g)) {
        const range = document.createRange();
        range.setStart(text, match.index);
        range.setEnd(text, match.index + match[0].length);
        if (range.getClientRects().length > 1) broken.push(match[0]);
      }
      return broken;
    }),
  );
  expect(brokenWords).toEqual([]);
  const rowHeights = await table.locator("tbody tr").evaluateAll((rows) => rows.map((row) => row.getBoundingClientRect().height));
  for (const height of rowHeights) expect(height).toBeLessThan(120);

  const blocks = reply.getByRole("figure");
  await expect(blocks).toHaveCount(2);
  await expect(blocks.first().locator("figcaption")).toContainText("ts");
  await expect(blocks.nth(1).locator("figcaption")).toContainText("text");
  await expect(blocks.first().getByRole("button", { name: "Copy code" })).toBeVisible();
  const size = await blocks.first().locator("pre").evaluate((pre) => parseFloat(getComputedStyle(pre).fontSize));
  expect(size).toBeGreaterThanOrEqual(14);
});
