import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startMachineProcess, type MachineProcess } from "../support/machine-process";
import { E2E_BASE_URL } from "./support/environment";
import { visit } from "./support/pages";
import { ConversationPage, expect, test, unique } from "./support/fixtures";

let machine: MachineProcess | null = null;

test.afterEach(async () => {
  await machine?.stop();
  machine = null;
});

test("a machine added in Settings runs a conversation's shell in its own HOME and folder, restarts from an earlier message with files restored there, and its going offline shows the banner", async ({ app, api }) => {
  const page = app.page;
  const name = unique("laptop").replace(" ", "-");
  await visit(page, "/settings/machines");
  await page.getByRole("textbox", { name: "Machine name" }).fill(name);
  await page.getByRole("button", { name: "Add machine" }).click();
  const command = await page.getByTestId("machine-connect-command").textContent();
  const token = /ATRIUM_MACHINE_TOKEN=(\S+)/.exec(command ?? "")?.[1];
  expect(token, "the connect command carries the token").toBeTruthy();
  expect(command).toContain(`atrium machine connect ${E2E_BASE_URL}`);
  const row = page.getByRole("listitem", { name: `Machine ${name}` });
  await expect(row).toContainText("offline");

  const base = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-e2e-machine-"));
  const root = path.join(base, "checkout");
  fs.mkdirSync(root);
  machine = startMachineProcess({ url: E2E_BASE_URL, token: token!, home: path.join(base, "home"), roots: [root] });
  // Live: the row turns online from the machine.updated event, without a reload.
  await expect(row).toContainText("online");
  await expect(row).toContainText(fs.realpathSync(root));

  const newChat = await app.sidebar.newChat();
  await page.getByRole("combobox", { name: "Machine" }).click();
  await page.getByRole("option", { name: new RegExp(name) }).click();
  const conversation = await newChat.start('[[tool:shell {"command":"echo home=$HOME; echo cwd=$(pwd)"}]]');
  const approval = page.getByRole("group", { name: "Approval for shell" });
  // The approval names the machine the call would run on.
  await expect(approval).toContainText(`to run on ${name}?`);
  // So does the approvals page, in a second tab of the same browser.
  const approvalsTab = await page.context().newPage();
  await approvalsTab.goto("/approvals");
  await expect(approvalsTab.getByRole("listitem").filter({ has: approvalsTab.getByRole("group", { name: "Approval for shell" }) })).toContainText(`on ${name}`);
  await approvalsTab.close();
  await approval.getByRole("button", { name: "Approve" }).click();
  await expect(conversation.lastReply).toHaveText(`Tool shell returned: home=${path.join(base, "home")}`);
  // The card opened while the call ran and may still be open: open it only if it is not.
  const card = page.getByRole("button", { name: /^shell/ });
  if ((await card.getAttribute("aria-expanded")) !== "true") await card.click();
  const output = page.getByLabel("shell output");
  await expect(output).toContainText(`home=${path.join(base, "home")}`);
  await expect(output).toContainText(`cwd=${fs.realpathSync(root)}`);
  await expect(page.getByLabel(`Machine: ${name}, online`)).toBeVisible();

  // Restart from an earlier message with its files restored: on the machine, from the machine's own snapshots.
  await api.sendMessage(conversation.id, '[[tool:write_file {"path":"plan.txt","content":"made on the machine\\n"}]]');
  await api.decideUntilIdle(conversation.id, "approve");
  expect(fs.readFileSync(path.join(root, "plan.txt"), "utf8")).toBe("made on the machine\n");
  const second = conversation.userMessages.nth(1);
  await second.hover();
  await second.getByRole("button", { name: "Restart from here" }).click();
  const dialog = page.getByRole("alertdialog", { name: "Restart from here" });
  await expect(dialog.getByRole("list", { name: "Files changed since this message" })).toContainText("plan.txt");
  await dialog.getByRole("checkbox", { name: "Also restore files to how they were before this message" }).check();
  await dialog.getByRole("button", { name: "Restart", exact: true }).click();
  await expect(page).not.toHaveURL(new RegExp(conversation.id));
  const restarted = new ConversationPage(page);
  await expect(restarted.composer).toHaveValue(/tool:write_file/);
  expect(fs.existsSync(path.join(root, "plan.txt"))).toBe(false);
  await expect(page.getByLabel(`Machine: ${name}, online`)).toBeVisible();

  await machine.stop();
  machine = null;
  const banner = page.getByRole("alert", { name: "Machine offline" });
  await expect(banner).toBeVisible();
  await expect(page.getByLabel(`Machine: ${name}, offline`)).toBeVisible();
  await banner.getByRole("button", { name: "Pick another machine" }).click();
  await banner.getByRole("button", { name: "Move here" }).click();
  await expect(banner).toBeHidden();
  expect((await api.getConversation(restarted.id)).machine).toBe("local");

  // Revoked in Settings, after asking: the row goes, and the machine's token no longer links.
  await visit(page, "/settings/machines");
  await page.getByRole("button", { name: `Revoke ${name}` }).click();
  const confirm = page.getByRole("alertdialog", { name: `Revoke ${name}?` });
  await expect(confirm).toContainText("Its token stops working");
  await confirm.getByRole("button", { name: "Revoke", exact: true }).click();
  await expect(page.getByRole("listitem", { name: `Machine ${name}` })).toHaveCount(0);
  machine = startMachineProcess({ url: E2E_BASE_URL, token: token!, home: path.join(base, "home"), roots: [root] });
  expect(await machine.exited).toBe(1);
  expect(machine.output()).toContain("refused this token");
  fs.rmSync(base, { recursive: true, force: true });
});
