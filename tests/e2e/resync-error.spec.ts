import type { Request } from "@playwright/test";
import { ConversationPage, expect, test, unique } from "./support/fixtures";

/** The resync is a server action: a POST to the conversation's page carrying a Next-Action header. */
const isResync = (request: Request) => request.method() === "POST" && request.headers()["next-action"] !== undefined;

test("a resync that fails is shown with its error, and Retry brings the page up to date", async ({ app, api }) => {
  const created = await api.createConversation(unique("resync error"));
  await api.waitUntilIdle(created.id);

  let failing = true;
  await app.page.route(`**/c/${created.id}`, (route) => {
    if (failing && isResync(route.request())) return route.fulfill({ status: 500, contentType: "text/plain", body: "Atrium is restarting" });
    return route.fallback();
  });
  // Every stream open starts with a snapshot, and every snapshot asks for a resync.
  const conversation = await ConversationPage.open(app.page, created.id);
  const alert = app.page.getByRole("alert").filter({ hasText: "Could not bring the conversation up to date." });
  await expect(alert).toBeVisible();
  await expect(alert).toContainText("Atrium is restarting");

  failing = false;
  const resynced = app.page.waitForResponse((response) => isResync(response.request()) && response.ok());
  await alert.getByRole("button", { name: "Retry" }).click();
  await resynced;
  await expect(alert).toBeHidden();
  await expect(conversation.lastReply).toContainText("You said:");
});
