import type { Locator } from "@playwright/test";
import { ConversationPage, expect, test, unique } from "./support/fixtures";

/** The streamed words w1 … wN seen so far; a duplicated delta would break the sequence. */
async function streamedWords(reply: Locator): Promise<number[]> {
  const text = await reply.locator(".markdown").innerText();
  return [...text.matchAll(/\bw(\d+)\b/g)].map((match) => Number(match[1]));
}

function expectConsecutive(words: number[]): void {
  expect(words).toEqual(words.map((_, index) => index + 1));
}

test("reloading mid-turn picks the stream up again without duplicated text", async ({ app, api }) => {
  const words = unique("resume");
  const created = await api.createConversation(`${words} [[delay:300]] [[stream:200]]`);
  const conversation = await ConversationPage.open(app.page, created.id);
  await expect(conversation.lastReply).toContainText("w4");

  await conversation.reload();
  const reply = conversation.lastReply;
  await expect(reply).toHaveAttribute("data-status", "streaming");
  const atReload = (await streamedWords(reply)).length;
  // New words keep arriving after the reload, continuing the sequence with nothing repeated.
  await expect.poll(async () => (await streamedWords(reply)).length, { timeout: 20_000 }).toBeGreaterThan(atReload + 3);
  expectConsecutive(await streamedWords(reply));
  await expect(reply.locator(".markdown")).toHaveText(new RegExp(`^You said: ${words}( w\\d+)+$`));

  await conversation.interruptButton.click();
  await conversation.expectIdle();
  expectConsecutive(await streamedWords(reply));
  await expect(conversation.assistantMessages).toHaveCount(1);
  await expect(conversation.userMessages).toHaveCount(1);
});
