import { expect, test, unique } from "./support/fixtures";
import { Sidebar, visit } from "./support/pages";
import { E2E_TOKEN } from "./support/environment";

test("signing in with the token URL shows the conversations, and signing out locks the app again", async ({ page, api }) => {
  const title = unique("Seeded conversation");
  await api.createConversation(title);

  await page.goto(`/signin?token=${encodeURIComponent(E2E_TOKEN)}`);
  await expect(page).toHaveURL(/\/$/);
  const sidebar = new Sidebar(page);
  await expect(sidebar.conversation(title)).toBeVisible();

  await sidebar.signOut();
  await expect(page.getByRole("status")).toContainText("You are signed out");
  await page.goto("/");
  await expect(page).toHaveURL(/\/signin$/);
  await expect(page.getByRole("heading", { name: "Sign in to Atrium" })).toBeVisible();
});

test("a wrong token is refused with a clear message, and pasting the right one signs in", async ({ page }) => {
  await visit(page, "/signin");
  await page.getByLabel("Access token").fill("not-the-token");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/signin\?error=1$/);
  await expect(page.getByRole("alert").filter({ hasText: "That token is not right" })).toBeVisible();

  await page.getByLabel("Access token").fill(E2E_TOKEN);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole("heading", { name: "What should we work on?" })).toBeVisible();
});
