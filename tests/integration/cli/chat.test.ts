import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startServerProcess, type ServerProcess } from "../../support/server-process";
import { makeTempHome } from "../../support/temp-home";
import { waitUntil } from "../../support/wait-until";
import { runAtrium } from "./run-atrium";

const REPO_ROOT = path.resolve(import.meta.dirname, "../../..");
const ATRIUM = path.join(REPO_ROOT, "bin", "atrium.ts");
const TSX = pathToFileURL(path.join(REPO_ROOT, "node_modules", "tsx", "dist", "loader.mjs")).href;

/** A running `atrium chat` process whose output can be awaited. */
interface ChatProcess {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  type(line: string): void;
  /** Resolves once stdout matches (searching from `from`), else rejects at the deadline with what was printed. */
  waitFor(pattern: RegExp | string, options?: { timeoutMs?: number; from?: number }): Promise<RegExpExecArray>;
  exited: Promise<number | null>;
}

function startChat(args: string[], env: Record<string, string>): ChatProcess {
  const child = spawn(process.execPath, ["--import", TSX, ATRIUM, "chat", ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  const listeners = new Set<() => void>();
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const listener of [...listeners]) listener();
  });
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    child,
    stdout: () => stdout,
    type: (line) => child.stdin.write(`${line}\n`),
    exited,
    waitFor(pattern, { timeoutMs = 15_000, from = 0 } = {}) {
      const regex = typeof pattern === "string" ? new RegExp(escapeRegExp(pattern)) : pattern;
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = regex.exec(stdout.slice(from));
          if (!match) return;
          finish();
          resolve(match);
        };
        const timer = setTimeout(() => {
          finish();
          reject(new Error(`chat never printed ${regex} within ${timeoutMs} ms.\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`));
        }, timeoutMs);
        const finish = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      });
    },
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

let home: string;
let cleanup: () => void;
let port: number;
let server: ServerProcess;
const chats: ChatProcess[] = [];

async function restartServer(): Promise<void> {
  await server.stop();
  // A fixed port, so runtime.lock names where the server listens (the chat reads it from there).
  server = await startServerProcess(home, { PORT: String(port) });
}

beforeAll(async () => {
  ({ home, cleanup } = makeTempHome("atrium-chat-"));
  port = await freePort();
  server = await startServerProcess(home, { PORT: String(port) });
});

afterEach(async () => {
  for (const chat of chats.splice(0)) {
    if (chat.child.exitCode === null && chat.child.signalCode === null) chat.child.kill("SIGKILL");
    await chat.exited;
  }
});

afterAll(async () => {
  await server?.stop();
  cleanup?.();
});

function chatWithHome(id: string, args: string[] = []): ChatProcess {
  const chat = startChat([id, ...args], { ATRIUM_HOME: home, ATRIUM_TOKEN: server.token });
  chats.push(chat);
  return chat;
}

async function createConversation(text: string): Promise<string> {
  const response = await server.api("/api/conversations", { method: "POST", body: JSON.stringify({ text }) });
  expect(response.status).toBe(201);
  const { conversation } = (await response.json()) as { conversation: { id: string } };
  await waitForIdle(conversation.id);
  return conversation.id;
}

async function waitForIdle(id: string): Promise<void> {
  await waitUntil(async () => {
    const { conversation } = (await (await server.api(`/api/conversations/${id}`)).json()) as { conversation: { status: string } };
    return conversation.status === "idle";
  }, `conversation ${id} to be idle`);
}

/** Waits until the chat has printed its opening (history, snapshot) and reads stdin. */
async function attached(chat: ChatProcess): Promise<void> {
  await chat.waitFor("/help for commands");
}

describe("atrium chat", () => {
  it("shows the recent history, sends a typed line and streams the reply", async () => {
    const id = await createConversation("first message");
    const chat = chatWithHome(id);
    await attached(chat);
    expect(chat.stdout()).toContain("you: first message");
    expect(chat.stdout()).toContain("assistant: You said: first message");

    const mark = chat.stdout().length;
    chat.type("hello [[stream:5]]");
    await chat.waitFor("assistant: You said: hello w1 w2 w3 w4 w5\n", { from: mark });
    await chat.waitFor("[turn ended: completed", { from: mark });
    expect(chat.stdout().slice(mark)).toContain("you: hello [[stream:5]]");
    expect(chat.stdout()).not.toMatch(/\u001b\[/);

    chat.type("/quit");
    expect(await chat.exited).toBe(0);
  });

  it("shows live a message that another client sent to the same conversation", async () => {
    const id = await createConversation("opening");
    const chat = chatWithHome(id);
    await attached(chat);
    const mark = chat.stdout().length;

    const response = await server.api(`/api/conversations/${id}/messages`, {
      method: "POST",
      body: JSON.stringify({ text: "from the browser [[stream:3]]", requestKey: "browser-1" }),
    });
    expect(response.status).toBe(202);
    const { turn } = (await response.json()) as { turn: { id: string } };

    await chat.waitFor("you: from the browser [[stream:3]]", { from: mark });
    await chat.waitFor("assistant: You said: from the browser w1 w2 w3\n", { from: mark });
    await chat.waitFor("[turn ended: completed", { from: mark });
    const { turn: ended } = (await (await server.api(`/api/turns/${turn.id}`)).json()) as { turn: { status: string } };
    expect(ended.status).toBe("completed");
  });

  it("interrupts the running turn with /interrupt and keeps the partial text", async () => {
    const id = await createConversation("warm up");
    const chat = chatWithHome(id);
    await attached(chat);
    const mark = chat.stdout().length;

    chat.type("slow [[delay:200]] [[stream:50]]");
    await chat.waitFor(/assistant: You said: slow/, { from: mark });
    chat.type("/interrupt");
    await chat.waitFor(/assistant: You said: slow[^\n]* \[interrupted\]\n/, { from: mark });
    await chat.waitFor("[turn ended: interrupted", { from: mark });
    expect(chat.stdout().slice(mark)).not.toContain("w50");

    const { turns } = (await (await server.api(`/api/conversations/${id}/turns`)).json()) as { turns: Array<{ status: string }> };
    expect(turns.map((turn) => turn.status)).toContain("interrupted");
  });

  it("queues with /queue, jumps with /jump, and Ctrl-C interrupts a running turn, then leaves when idle", async () => {
    const id = await createConversation("warm up");
    const chat = chatWithHome(id);
    await attached(chat);
    const mark = chat.stdout().length;

    chat.type("long [[delay:200]] [[stream:50]]");
    await chat.waitFor(/assistant: You said: long/, { from: mark });
    chat.type("/queue after the long one");
    await chat.waitFor('waiting (1): queue "after the long one"', { from: mark });
    chat.type("/jump right now");
    await chat.waitFor("[turn ended: interrupted", { from: mark });
    const jumped = await chat.waitFor("assistant: You said: right now\n", { from: mark });
    const afterJump = mark + jumped.index;
    await chat.waitFor("assistant: You said: after the long one\n", { from: afterJump });
    await waitForIdle(id);

    const beforeSignal = chat.stdout().length;
    chat.type("again [[delay:200]] [[stream:50]]");
    await chat.waitFor(/assistant: You said: again/, { from: beforeSignal });
    chat.child.kill("SIGINT");
    await chat.waitFor("[turn ended: interrupted", { from: beforeSignal });
    chat.child.kill("SIGINT");
    expect(await chat.exited).toBe(0);
  });

  it("prints approvals and questions with their ids and sends /approve and /answer", async () => {
    const id = await createConversation("warm up");
    const chat = chatWithHome(id);
    await attached(chat);
    const mark = chat.stdout().length;

    chat.type('[[tool:shell {"command":"echo chat-approved"}]]');
    const approval = await chat.waitFor(/\/approve ([0-9A-Z]{26})/, { from: mark });
    expect(chat.stdout().slice(mark)).toContain('approval needed: shell {"command":"echo chat-approved"}');
    chat.type(`/approve ${approval[1]}`);
    await chat.waitFor(/\n  chat-approved\n/, { from: mark });
    await chat.waitFor("assistant: Tool shell returned: chat-approved", { from: mark });
    await chat.waitFor("[turn ended: completed", { from: mark });

    const beforeQuestion = chat.stdout().length;
    chat.type('[[tool:ask_user {"question":"Which colour?","choices":["red","blue"]}]]');
    const question = await chat.waitFor(/\/answer ([0-9A-Z]{26}) <your answer>/, { from: beforeQuestion });
    expect(chat.stdout().slice(beforeQuestion)).toContain("question: Which colour?  (choices: red, blue)");
    chat.type(`/answer ${question[1]} blue`);
    await chat.waitFor("assistant: Tool ask_user returned: blue", { from: beforeQuestion });
  });

  it("reconnects after the server restarts and goes on streaming", async () => {
    const id = await createConversation("before the restart");
    const chat = chatWithHome(id);
    await attached(chat);

    await restartServer();
    await chat.waitFor("connection lost");
    await chat.waitFor("[reconnected]");
    const mark = chat.stdout().length;
    // A message sent by another client after the restart reaches this chat over the new stream.
    await server.api(`/api/conversations/${id}/messages`, { method: "POST", body: JSON.stringify({ text: "after the restart" }) });
    await chat.waitFor("assistant: You said: after the restart\n", { from: mark });
    chat.type("typed after [[stream:2]]");
    await chat.waitFor("assistant: You said: typed after w1 w2\n", { from: mark });
  }, 90_000);

  it("attaches through --url with no runtime.lock at hand", async () => {
    const id = await createConversation("by url");
    const elsewhere = makeTempHome("atrium-chat-url-");
    try {
      const chat = startChat([id, "--url", server.url], { ATRIUM_HOME: elsewhere.home, ATRIUM_TOKEN: server.token });
      chats.push(chat);
      await attached(chat);
      expect(chat.stdout()).toContain("assistant: You said: by url");
      chat.child.stdin.end();
      expect(await chat.exited).toBe(0);
    } finally {
      elsewhere.cleanup();
    }
  });

  it("exits 1 when no server runs and 2 for a bad or unknown conversation id", async () => {
    const empty = makeTempHome("atrium-chat-none-");
    try {
      const noServer = await runAtrium(["chat", "01J0000000000000000000000A"], { home: empty.home, env: { ATRIUM_TOKEN: "x" } });
      expect(noServer.status).toBe(1);
      expect(noServer.stderr).toContain("No Atrium server is running");
    } finally {
      empty.cleanup();
    }

    const malformed = await runAtrium(["chat", "not-an-id"], { home, env: { ATRIUM_TOKEN: server.token } });
    expect(malformed.status).toBe(2);

    const unknown = await runAtrium(["chat", "01J0000000000000000000000A"], { home, env: { ATRIUM_TOKEN: server.token } });
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("there is no conversation 01J0000000000000000000000A");
  }, 60_000);
});
