import { expect, test } from "./support/fixtures";
import { visit } from "./support/pages";

test("Settings → Models and Agents list the configured models and agents, read-only", async ({ app }) => {
  await visit(app.page, "/settings");
  const nav = app.page.getByRole("navigation", { name: "Settings sections" });
  await nav.getByRole("link", { name: "Models" }).click();
  await expect(app.page).toHaveURL(/\/settings\/models$/);
  await expect(nav.getByRole("link", { name: "Models" })).toHaveAttribute("aria-current", "page");
  const models = app.page.getByRole("table", { name: "Models" });
  const offline = models.getByTestId("model-offline");
  await expect(offline.getByRole("cell").first()).toHaveText("offlinedefault");
  await expect(offline).toContainText("Offline (built in)");
  await expect(offline.getByRole("cell").nth(2)).toHaveText(/^[\d,]+$/);
  await expect(offline).toContainText("text only");
  await expect(models.getByRole("textbox")).toHaveCount(0);
  await app.page.screenshot({ path: "test-results/screens/settings-models.png" });

  await nav.getByRole("link", { name: "Agents" }).click();
  await expect(app.page).toHaveURL(/\/settings\/agents$/);
  const agents = app.page.getByRole("table", { name: "Agents" });
  const reviewer = agents.getByTestId("agent-reviewer");
  await expect(reviewer).toContainText("Reads and reviews, changes nothing.");
  await expect(reviewer.getByRole("cell").nth(1)).toHaveText("offline");
  await expect(reviewer.getByRole("cell").nth(2)).toHaveText("read_file, grep");
  await expect(reviewer.getByRole("cell").nth(3)).toHaveText(/\/agents\/reviewer\.md$/);
  const fallback = agents.getByTestId("agent-default");
  await expect(fallback.getByRole("cell").nth(1)).toHaveText("default (offline)");
  await expect(fallback.getByRole("cell").nth(2)).toHaveText("all tools");
  await expect(fallback.getByRole("cell").nth(3)).toHaveText("built in");
  await app.page.screenshot({ path: "test-results/screens/settings-agents.png" });
});
