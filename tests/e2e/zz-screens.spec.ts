import { expect, test, unique } from "./support/fixtures";
import { ConversationPage, signIn, visit } from "./support/pages";

const DIR = "/tmp/screens13";
for (const scheme of ["light", "dark"] as const) {
  for (const viewport of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
    test(`screens ${scheme} ${viewport.width}`, async ({ browser, api }) => {
      const context = await browser.newContext({ viewport, colorScheme: scheme });
      const page = await context.newPage();
      await signIn(page);
      const tag = `${scheme}-${viewport.width}`;
      await page.screenshot({ path: `${DIR}/${tag}-home.png` });
      const created = await api.createConversation(`${unique("Screens")} [[stream:120]]`);
      await api.waitUntilIdle(created.id);
      const conversation = await ConversationPage.open(page, created.id);
      await conversation.send("a running turn [[delay:150]] [[stream:80]]");
      await expect(conversation.lastReply).toContainText("w3");
      await page.screenshot({ path: `${DIR}/${tag}-running.png` });
      await conversation.interruptButton.click();
      await conversation.expectIdle();
      await page.route(`**/api/conversations/${created.id}/messages`, (route) => route.abort("connectionrefused"));
      await conversation.send("this one fails");
      await expect(page.getByRole("list", { name: "Messages not sent" })).toBeVisible();
      await page.screenshot({ path: `${DIR}/${tag}-failed.png` });
      await page.getByRole("banner").getByRole("button", { name: /^Context:/ }).click();
      await page.screenshot({ path: `${DIR}/${tag}-ring.png` });
      await page.keyboard.press("Escape");
      await visit(page, "/archive");
      await page.screenshot({ path: `${DIR}/${tag}-archive.png` });
      await context.close();
    });
  }
}
