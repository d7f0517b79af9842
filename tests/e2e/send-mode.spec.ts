import { ConversationPage, expect, test, unique } from "./support/fixtures";

const LONG = "[[delay:400]] [[stream:200]]";

test("the send mode belongs to one conversation: Steer by default, filled when chosen, back to Steer after a send unless pinned", async ({ app, api }) => {
  const first = await api.createConversation(`${unique("mode a")} ${LONG}`);
  const second = await api.createConversation(`${unique("mode b")} ${LONG}`);
  const conversation = await ConversationPage.open(app.page, first.id);
  await conversation.expectRunning();
  const modes = app.page.getByRole("radiogroup", { name: "While the turn runs" });
  const radio = (name: string) => modes.getByRole("radio", { name, exact: true });
  await expect(radio("Steer")).toHaveAttribute("aria-checked", "true");
  await expect(app.page.getByText("Enter to steer into the running turn")).toBeVisible();

  // The chosen mode is filled like the Send button, not just bolder, and Send names it.
  await radio("Queue").click();
  const send = app.page.getByRole("button", { name: "Send: Queue" });
  await expect(send).toBeVisible();
  await expect(app.page.getByText("Enter to queue after this turn")).toBeVisible();
  const filled = await send.evaluate((element) => getComputedStyle(element).backgroundColor);
  await expect(radio("Queue")).toHaveCSS("background-color", filled);
  await expect(radio("Steer")).not.toHaveCSS("background-color", filled);

  await conversation.composer.fill("queued once");
  await conversation.composer.press("Enter");
  await expect(conversation.waitingMessage("queued once")).toContainText("queued");
  await expect(radio("Steer")).toHaveAttribute("aria-checked", "true");

  // Pinned, the choice stays after sending and survives a reload of this conversation…
  await radio("Queue").click();
  await app.page.getByRole("button", { name: "Keep Queue for this conversation" }).click();
  await expect(app.page.getByRole("button", { name: "Keep Queue for this conversation" })).toHaveAttribute("aria-pressed", "true");
  await conversation.composer.fill("queued pinned");
  await conversation.composer.press("Enter");
  await expect(conversation.waitingMessage("queued pinned")).toContainText("queued");
  await expect(radio("Queue")).toHaveAttribute("aria-checked", "true");
  await conversation.reload();
  await expect(radio("Queue")).toHaveAttribute("aria-checked", "true");
  expect(await app.page.evaluate(() => window.localStorage.getItem("atrium:send-mode"))).toBeNull();

  // …but another conversation, in this tab or a new one, starts on Steer.
  const other = await ConversationPage.open(app.page, second.id);
  await other.expectRunning();
  await expect(radio("Steer")).toHaveAttribute("aria-checked", "true");
  const tab = await app.page.context().newPage();
  const otherTab = await ConversationPage.open(tab, second.id);
  await expect(tab.getByRole("radiogroup", { name: "While the turn runs" }).getByRole("radio", { name: "Steer", exact: true })).toHaveAttribute("aria-checked", "true");
  await otherTab.interruptButton.click();
  await otherTab.expectIdle();
  await tab.close();

  await ConversationPage.open(app.page, first.id);
  await conversation.interruptButton.click();
  await conversation.expectIdle();
});
