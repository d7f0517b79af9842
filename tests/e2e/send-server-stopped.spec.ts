import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test, unique } from "./support/fixtures";
import { E2E_PORT, E2E_TOKEN } from "./support/environment";
import { ConversationPage, hydrated } from "./support/pages";
import { startServerProcess, type ServerProcess } from "../support/server-process";

// Its own server, on its own port, so this test can stop and restart it without touching the shared one.
const PORT = String(E2E_PORT + 50);

test("a send while the server is stopped shows the error and Retry; after a restart Retry delivers exactly one message", async ({ page }) => {
  // Starts, stops and restarts its own production server: three server starts in one test.
  test.setTimeout(150_000);
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-e2e-stopped-"));
  const environment = { PORT, ATRIUM_TOKEN: E2E_TOKEN, NEXT_TELEMETRY_DISABLED: "1" };
  let server: ServerProcess = await startServerProcess(home, environment);
  try {
    const created = await server.api("/api/conversations", { method: "POST", body: JSON.stringify({ text: unique("stopped") }) });
    const conversationId = ((await created.json()) as { conversation: { id: string } }).conversation.id;

    await page.goto(`${server.url}/signin?token=${encodeURIComponent(E2E_TOKEN)}`);
    await expect(page).toHaveURL(`${server.url}/`);
    await hydrated(page);
    await page.goto(`${server.url}/c/${conversationId}`);
    await hydrated(page);
    const conversation = new ConversationPage(page);
    await conversation.expectLive();
    await expect(conversation.lastReply).toHaveAttribute("data-status", "completed");

    await server.stop();
    await conversation.send("sent while stopped");
    const unsent = page.getByRole("list", { name: "Messages not sent" });
    await expect(unsent).toContainText("sent while stopped");
    await expect(unsent.getByRole("alert")).toContainText("Atrium could not be reached");
    await expect(unsent.getByRole("button", { name: "Retry" })).toBeVisible();
    await expect(unsent.getByRole("button", { name: "Edit unsent message" })).toBeVisible();

    server = await startServerProcess(home, environment);
    await unsent.getByRole("button", { name: "Retry" }).click();
    await expect(unsent).toBeHidden();
    await expect(conversation.userMessages.filter({ hasText: "sent while stopped" })).toHaveCount(1);
    await expect(conversation.lastReply).toHaveText("You said: sent while stopped");

    const items = (await (await server.api(`/api/conversations/${conversationId}/items?limit=500`)).json()) as {
      items: Array<{ kind: string; text?: string }>;
    };
    expect(items.items.filter((item) => item.kind === "user_message" && item.text === "sent while stopped")).toHaveLength(1);
  } finally {
    await server.stop();
    fs.rmSync(home, { recursive: true, force: true });
  }
});
