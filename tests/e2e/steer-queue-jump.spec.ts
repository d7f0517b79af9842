import { ConversationPage, expect, test, unique } from "./support/fixtures";

/** Long enough to outlast a slow page load; every test stops it early. */
const LONG = "[[delay:400]] [[stream:200]]";

test("Jump interrupts the running turn and goes first; a Steer the turn never read becomes the next turn; Queue waits its turn", async ({ app, api }) => {
  const created = await api.createConversation(`${unique("first")} ${LONG}`);
  const conversation = await ConversationPage.open(app.page, created.id);
  await conversation.expectRunning();

  await conversation.send("queued message", "Queue");
  await expect(conversation.waitingMessage("queued message")).toContainText("queued");
  await conversation.send("steered message", "Steer");
  await expect(conversation.waitingMessage("steered message")).toContainText("steer");

  await conversation.send("jumping message", "Jump");
  await expect(conversation.history.getByRole("note").filter({ hasText: "interrupted by the owner" })).toBeVisible();
  await expect(conversation.assistantMessages.first()).toHaveAttribute("data-status", "interrupted");

  // The jump runs next; the steer its turn never read becomes the turn after it; the queued message gets a turn of its own.
  await expect(conversation.lastReply).toHaveText("You said: queued message", { timeout: 30_000 });
  await conversation.expectIdle();
  await expect(conversation.waitingList).toBeHidden();
  const order = await conversation.userMessageTexts();
  expect(order.slice(1)).toEqual(["jumping message", "steered message", "queued message"]);
});

test("Steer hands a message to a running turn, which reads it at its next model call", async ({ app, api }) => {
  const created = await api.createConversation(`${unique("steer")} [[tool:shell {"command":"echo hi"}]]`);
  const conversation = await ConversationPage.open(app.page, created.id);
  const approval = conversation.history.getByRole("group", { name: "Approval for shell" });
  await expect(approval).toBeVisible();

  await conversation.send("also consider this", "Steer");
  await expect(conversation.waitingMessage("also consider this")).toContainText("steer");
  await approval.getByRole("button", { name: "Approve" }).click();

  await expect(conversation.lastReply).toHaveText("You said: also consider this", { timeout: 30_000 });
  await conversation.expectIdle();
  await expect(conversation.assistantMessages).toHaveCount(1);
  await expect(conversation.userMessages).toHaveCount(2);
});

test("a waiting message can be edited and withdrawn, and waits after an interrupt until the owner runs it", async ({ app, api }) => {
  const created = await api.createConversation(`${unique("long")} ${LONG}`);
  const conversation = await ConversationPage.open(app.page, created.id);
  await conversation.expectRunning();

  await conversation.send("keep me", "Queue");
  await conversation.send("drop me", "Queue");
  const keep = conversation.waitingMessage("keep me");
  await expect(keep).toBeVisible();

  await keep.getByRole("button", { name: "Edit" }).click();
  const editor = app.page.getByRole("textbox", { name: "Edit waiting message" });
  await editor.fill("edited message [[stream:2]]");
  await editor.press("Enter");
  await expect(conversation.waitingMessage("edited message")).toBeVisible();

  await conversation.waitingMessage("drop me").getByRole("button", { name: "Withdraw" }).click();
  await expect(conversation.waitingMessage("drop me")).toHaveCount(0);

  // Stop means stop (DESIGN §3): after the interrupt the message waits, paused, until the owner runs it.
  await conversation.interruptButton.click();
  await conversation.expectIdle();
  await expect(app.page.getByRole("region", { name: "Waiting messages" })).toContainText("paused after your interrupt");
  await expect(conversation.waitingMessage("edited message")).toBeVisible();
  await conversation.waitingMessage("edited message").getByRole("button", { name: "Jump now" }).click();
  await expect(conversation.lastReply).toHaveText("You said: edited message w1 w2", { timeout: 30_000 });
  await conversation.expectIdle();
  await expect(conversation.userMessages.filter({ hasText: "drop me" })).toHaveCount(0);
});

test("a send past the waiting-message cap says so plainly and keeps the text for Edit", async ({ app, api }) => {
  const created = await api.createConversation(`${unique("full")} [[tool:shell {"command":"echo hi"}]]`);
  const conversation = await ConversationPage.open(app.page, created.id);
  await expect(conversation.history.getByRole("group", { name: "Approval for shell" })).toBeVisible();
  await api.queueMessages(created.id, 100);
  await expect(conversation.waitingList.getByRole("listitem")).toHaveCount(100);

  await conversation.send("one message too many", "Queue");
  const unsent = app.page.getByRole("list", { name: "Messages not sent" });
  await expect(unsent.getByRole("alert")).toHaveText(
    "Not sent: This conversation already has 100 waiting messages, the most it can hold (100). Wait for one to start, or withdraw one, then send again.",
  );
  await expect(unsent).toContainText("one message too many");
  await unsent.scrollIntoViewIfNeeded();
  await app.page.screenshot({ path: test.info().outputPath("queue-full.png") });

  await unsent.getByRole("button", { name: "Edit unsent message" }).click();
  await expect(conversation.composer).toHaveValue("one message too many");
  await expect(conversation.waitingList.getByRole("listitem")).toHaveCount(100);
});
