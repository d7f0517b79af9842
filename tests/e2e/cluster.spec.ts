import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { startMachineProcess } from "../support/machine-process";
import { E2E_PORT } from "./support/environment";
import { ConversationPage, hydrated, NewChatPage, Sidebar } from "./support/pages";
import { startClusterServer, type ClusterServer } from "../support/cluster-server";
import { startTestPostgres, type TestPostgres } from "../support/test-postgres";

// Two nodes of one cluster (DESIGN §10c): the real server twice, on one real PostgreSQL, each on
// its own port beside the shared test server's.
let postgres: TestPostgres;
let nodes: ClusterServer[] = [];

test.beforeAll(async () => {
  test.setTimeout(180_000);
  postgres = await startTestPostgres();
  nodes = [await startClusterServer(postgres.url, E2E_PORT + 30), await startClusterServer(postgres.url, E2E_PORT + 31)];
});

test.afterAll(async () => {
  for (const node of nodes) await node.cleanup();
  await postgres?.stop();
});

test("two nodes on one database: Settings → Cluster lists both, and a conversation held by one is used from the other's tab", async ({ browser }) => {
  const [a, b] = nodes;
  // A context each (signed in on each node): the page of either node is used as a user of that node would.
  const contextA = await browser.newContext();
  const contextB = await browser.newContext();
  const pageA = await contextA.newPage();
  const pageB = await contextB.newPage();
  for (const [page, node] of [[pageA, a], [pageB, b]] as const) {
    await page.goto(`${node.url}/signin?token=${encodeURIComponent(node.token)}`);
    await expect(page).toHaveURL(`${node.url}/`);
  }

  await pageA.goto(`${a.url}/settings/cluster`);
  await hydrated(pageA);
  const running = pageA.getByRole("list", { name: "Running nodes" });
  await expect(running.getByRole("listitem")).toHaveCount(2);
  await expect(running.getByRole("listitem", { name: `Node ${a.nodeId}` })).toContainText("this node");
  await expect(running.getByRole("listitem", { name: `Node ${b.nodeId}` })).toContainText(b.url);
  await pageA.screenshot({ path: "test-results/screens/settings-cluster.png" });

  // Made on node B (B holds it): node A's sidebar hears of it, live.
  await pageA.goto(`${a.url}/`);
  await hydrated(pageA);
  const created = await b.api("/api/conversations", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ text: "made on node b" }),
  });
  expect(created.status).toBe(201);
  const { conversation } = (await created.json()) as { conversation: { id: string; title: string } };
  await expect(new Sidebar(pageA).conversation(conversation.title)).toBeVisible();

  // Used from node A's tab: the message is passed to B, the reply streams back through A, and a tab on B sees the same turn.
  await pageB.goto(`${b.url}/c/${conversation.id}`);
  await hydrated(pageB);
  const watcher = new ConversationPage(pageB);
  await watcher.expectLive();
  await pageA.goto(`${a.url}/c/${conversation.id}`);
  await hydrated(pageA);
  const user = new ConversationPage(pageA);
  await user.expectLive();
  await user.send("from node a [[stream:30]] [[delay:10]]");
  await expect(user.lastReply).toContainText("w30");
  await expect(user.lastReply).toHaveAttribute("data-status", "completed");
  await expect(watcher.lastReply).toContainText("w30");
  await expect(watcher.lastReply).toHaveAttribute("data-status", "completed");
  // The header's context figures are the holder's, on both nodes.
  const ringOnB = pageB.getByTestId("context-ring");
  await expect(ringOnB).toHaveAttribute("aria-label", /^Context: \d+% used, .+ tokens of room left$/);
  await expect(pageA.getByTestId("context-ring")).toHaveAttribute("aria-label", (await ringOnB.getAttribute("aria-label"))!);
  await pageA.screenshot({ path: "test-results/screens/cluster-conversation.png" });
  await contextA.close();
  await contextB.close();
});

test("one sign-in is valid on every node: Settings on node B lists the browser signed in on node A, and 'Sign out everywhere' there ends it on A", async ({ browser }) => {
  const [a, b] = nodes;
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${a.url}/signin?token=${encodeURIComponent(a.token)}`);
  await expect(page).toHaveURL(`${a.url}/`);

  // Node B never saw this browser sign in; its Settings page opens, and lists the session as this browser's.
  await page.goto(`${b.url}/settings`);
  await hydrated(page);
  const browsers = page.getByRole("list", { name: "Signed-in browsers" });
  await expect(browsers.getByText("This browser")).toHaveCount(1);
  await page.screenshot({ path: "test-results/screens/cluster-sessions.png" });

  await page.getByRole("button", { name: "Sign out everywhere" }).click();
  await expect(page).toHaveURL(/\/signin\?signedOut=1$/);
  const tabOnA = await context.newPage();
  await tabOnA.goto(`${a.url}/`);
  await expect(tabOnA).toHaveURL(`${a.url}/signin`);
  await context.close();
});

test("a tab on node B following a conversation node C holds goes on live after C is killed: B takes the conversation over and the reply streams in", async ({ browser }) => {
  const b = nodes[1];
  // A third node with a short lease, so its death is noticed in two seconds, not ten.
  const c = await startClusterServer(postgres.url, E2E_PORT + 32, { cluster: { leaseSeconds: 2 } });
  try {
    const created = await c.api("/api/conversations", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text: "held by node c" }) });
    expect(created.status).toBe(201);
    const { conversation } = (await created.json()) as { conversation: { id: string } };
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${b.url}/signin?token=${encodeURIComponent(b.token)}`);
    await expect(page).toHaveURL(`${b.url}/`);
    await page.goto(`${b.url}/c/${conversation.id}`);
    await hydrated(page);
    const watcher = new ConversationPage(page);
    await watcher.expectLive();
    await expect(watcher.lastReply).toHaveAttribute("data-status", "completed");

    const exited = new Promise((resolve) => c.child.once("exit", resolve));
    c.child.kill("SIGKILL");
    await exited;
    // Until B can take it, the tab says it is reconnecting (at least the first second: the subscription is asked for again after 1 s).
    await expect(page.getByText("Reconnecting…")).toBeVisible();
    await page.screenshot({ path: "test-results/screens/cluster-node-died.png" });
    // B answers 503 node_unavailable while C's lease runs out, then takes the conversation and runs the turn.
    await expect
      .poll(async () => (await b.api(`/api/conversations/${conversation.id}/messages`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text: "after node c died [[stream:20]]" }) })).status, { timeout: 20_000 })
      .toBe(202);
    // The tab on B never reloaded: its subscription, refused while C was gone, was asked for again and carries the new turn.
    await expect(watcher.lastReply).toContainText("w20", { timeout: 20_000 });
    await expect(watcher.lastReply).toHaveAttribute("data-status", "completed");
    await expect(page.getByText("Reconnecting…")).toBeHidden();
    await context.close();
  } finally {
    await c.cleanup();
  }
});

test("a machine linked to node B is used from node A's tab: listed online there, picked in a new chat, and its shell runs on the machine through B", async ({ browser }) => {
  const [a, b] = nodes;
  const added = await a.api("/api/machines", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: "b-side-laptop" }) });
  expect(added.status).toBe(201);
  const { machine, token } = (await added.json()) as { machine: { id: string }; token: string };
  const base = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-e2e-cluster-machine-"));
  const root = path.join(base, "checkout");
  fs.mkdirSync(root);
  const laptop = startMachineProcess({ url: b.url, token, home: path.join(base, "home"), roots: [root] });
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${a.url}/signin?token=${encodeURIComponent(a.token)}`);
    await expect(page).toHaveURL(`${a.url}/`);
    // Linked to B, listed online on A, live (machine.updated reaches A's tab).
    await page.goto(`${a.url}/settings/machines`);
    await hydrated(page);
    await expect(page.getByRole("listitem", { name: "Machine b-side-laptop" })).toContainText("online", { timeout: 20_000 });

    await page.goto(`${a.url}/new`);
    await hydrated(page);
    await page.getByRole("combobox", { name: "Machine" }).click();
    await page.getByRole("option", { name: /b-side-laptop/ }).click();
    const conversation = await new NewChatPage(page).start('[[tool:shell {"command":"echo home=$HOME; echo cwd=$(pwd)"}]]');
    const approval = page.getByRole("group", { name: "Approval for shell" });
    await expect(approval).toContainText("to run on b-side-laptop?");
    await approval.getByRole("button", { name: "Approve" }).click();
    await expect(conversation.lastReply).toHaveText(`Tool shell returned: home=${path.join(base, "home")}`);
    await expect(page.getByLabel("Machine: b-side-laptop, online")).toBeVisible();
    const id = /\/c\/([0-9A-Z]{26})$/.exec(page.url())![1]!;
    const held = (await (await a.api(`/api/conversations/${id}`)).json()) as { conversation: { node: string | null } };
    expect(held.conversation.node).toBe(b.nodeId);
    await page.screenshot({ path: "test-results/screens/cluster-machine.png" });
  } finally {
    await context.close();
    await laptop.stop();
    fs.rmSync(base, { recursive: true, force: true });
  }
});
