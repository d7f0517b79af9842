import { ConversationPage, expect, test, unique } from "./support/fixtures";

test("a reply with <script> and a javascript: link renders inert", async ({ app, api }) => {
  const payload = `${unique("xss")} <script>window.__atriumPwned = 1</script> <img src=x onerror="window.__atriumPwned = 2"> [click me](javascript:window.__atriumPwned=3) [safe](https://example.com/docs)`;
  const created = await api.createConversation(payload);
  await api.waitUntilIdle(created.id);
  const conversation = await ConversationPage.open(app.page, created.id);
  const reply = conversation.lastReply;
  await expect(reply).toContainText("You said:");

  await expect(reply.locator("script")).toHaveCount(0);
  await expect(reply.locator("img")).toHaveCount(0);
  await expect(reply.getByRole("link", { name: "click me" })).toHaveCount(0);
  await expect(reply.getByText("click me")).toBeVisible();
  const safe = reply.getByRole("link", { name: "safe" });
  await expect(safe).toHaveAttribute("href", "https://example.com/docs");
  await expect(safe).toHaveAttribute("rel", /noopener/);
  await expect(safe).toHaveAttribute("rel", /noreferrer/);
  await expect(safe).toHaveAttribute("target", "_blank");

  await reply.getByText("click me").click();
  expect(await app.page.evaluate(() => (window as { __atriumPwned?: number }).__atriumPwned)).toBeUndefined();
  await expect(app.page.locator('a[href^="javascript:"]')).toHaveCount(0);
});
