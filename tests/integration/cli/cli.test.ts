import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Store } from "@/lib/store/store";
import { makeTempHome } from "../../support/temp-home";
import { createConversation, indexedItems } from "../store/conversation-fixtures";
import { spawnLockHolder, type LockHolder } from "../store/lock-holder";
import { runAtrium } from "./run-atrium";

describe("the atrium command", () => {
  const temps: Array<ReturnType<typeof makeTempHome>> = [];
  let holder: LockHolder | null = null;
  const home = () => {
    const temp = makeTempHome("atrium-cli-");
    temps.push(temp);
    return temp.home;
  };
  /** Builds conversations through the Store, then closes it so the CLI has the data directory to itself. */
  const seed = async (at: string, titles: string[]) => {
    const store = new Store(at, { log: () => {} });
    try {
      const built = [];
      for (const title of titles) {
        built.push(await createConversation(store, { title, texts: [`${title}: first`, `${title}: second`] }));
      }
      return built;
    } finally {
      await store.close();
    }
  };
  const items = async (at: string, conversationId: string) => {
    const store = new Store(at, { log: () => {} });
    try {
      return indexedItems(store, conversationId);
    } finally {
      await store.close();
    }
  };

  let dataHome: string;
  beforeEach(() => {
    dataHome = home();
  });
  afterEach(async () => {
    await holder?.kill();
    holder = null;
    temps.splice(0).forEach((temp) => temp.cleanup());
  });

  it("exits 2 on bad usage and 0 on help", async () => {
    const id = "01ARZ3NDEKTSV4RRFFQ69G5FAV";
    const runs = await Promise.all([
      runAtrium([], { home: dataHome }),
      runAtrium(["frobnicate"], { home: dataHome }),
      runAtrium(["reindex", "--everything"], { home: dataHome }),
      runAtrium(["export"], { home: dataHome }),
      runAtrium(["export", "../../etc"], { home: dataHome }),
      runAtrium(["import"], { home: dataHome }),
      runAtrium(["chat", "not-an-id"], { home: dataHome }),
      runAtrium(["serve", "--port", "http"], { home: dataHome }),
      runAtrium(["serve", "stop", "now"], { home: dataHome }),
      runAtrium(["export", id, "--output"], { home: dataHome }),
    ]);
    for (const run of runs) {
      expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 2, stderr: expect.stringContaining('Run "atrium help" for usage.') });
    }
    expect(runs[1].stderr).toContain('unknown command "frobnicate"');
    expect(runs[2].stderr).toContain("--everything");
    expect(runs[4].stderr).toContain('"../../etc" is not a conversation id');

    const help = await runAtrium(["help"], { home: dataHome });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("export <id> [--with-ancestors] [-o file]");
    expect(fs.readdirSync(dataHome)).toEqual([]);
  }, 60_000);

  it("reindex rebuilds the index and prints what it did", async () => {
    const [first, doomed] = await seed(dataHome, ["Alpha", "Doomed", "Gamma"]);
    const store = new Store(dataHome, { log: () => {} });
    await store.appendMetadata(doomed.conversationId, { type: "conversation.deleted", conversationId: doomed.conversationId });
    await store.close();
    fs.rmSync(store.paths.database);

    const run = await runAtrium(["reindex"], { home: dataHome });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`Finished the interrupted deletion of ${doomed.conversationId}`);
    expect(run.stdout).toMatch(/Reindexed 2 conversations \(28 records\) in \d+ ms; skipped 0; finished 1 interrupted deletion\./);
    expect((await items(dataHome, first.conversationId)).map((item) => item.text)).toContain("Alpha: second");
    expect(fs.existsSync(store.paths.lock)).toBe(false);
  });

  it("reindex and import refuse with 3, naming the pid, while another live process holds the lock", async () => {
    const [conversation] = await seed(dataHome, ["Busy"]);
    holder = await spawnLockHolder(path.join(dataHome, "runtime.lock"));
    const [reindexRun, importRun] = await Promise.all([
      runAtrium(["reindex"], { home: dataHome }),
      runAtrium(["import", path.join(dataHome, "conversations", conversation.conversationId)], { home: dataHome }),
    ]);
    for (const run of [reindexRun, importRun]) {
      expect(run.status).toBe(3);
      expect(run.stderr).toContain(`pid ${holder.pid}`);
    }
    expect(fs.existsSync(path.join(dataHome, "metadata.db"))).toBe(true);
  });

  it("serve stop signals the pid named in the lock and waits for it to exit", async () => {
    const nothing = await runAtrium(["serve", "stop"], { home: dataHome });
    expect(nothing.status).toBe(1);
    expect(nothing.stderr).toContain("No Atrium server is running");

    holder = await spawnLockHolder(path.join(dataHome, "runtime.lock"));
    const run = await runAtrium(["serve", "stop"], { home: dataHome });
    expect(run.stdout).toContain(`Sent SIGTERM to Atrium pid ${holder.pid} on 127.0.0.1:4321`);
    expect(run.stdout).toContain(`Atrium pid ${holder.pid} stopped.`);
    expect(run.status).toBe(0);
    await holder.exited;
    expect(holder.child.signalCode).toBe("SIGTERM");
  });

  it("export then import moves a conversation between data directories", async () => {
    const [conversation] = await seed(dataHome, ["Travelling"]);
    const outDir = home();
    const exported = await runAtrium(["export", conversation.conversationId], { home: dataHome, cwd: outDir });
    expect(exported.stderr).toBe("");
    expect(exported.status).toBe(0);
    const file = path.join(outDir, `${conversation.conversationId}.tar.gz`);
    expect(exported.stdout).toContain(`Exported ${conversation.conversationId} to ${file}`);

    const otherHome = home();
    const imported = await runAtrium(["import", file], { home: otherHome, cwd: outDir });
    expect(imported.stderr).toBe("");
    expect(imported.status).toBe(0);
    expect(imported.stdout).toContain(`Imported ${conversation.conversationId} "Travelling" (14 records)`);
    expect(await items(otherHome, conversation.conversationId)).toEqual(await items(dataHome, conversation.conversationId));

    const again = await runAtrium(["import", file], { home: otherHome });
    expect(again.status).toBe(0);
    expect(again.stdout).toContain(`Unchanged ${conversation.conversationId} "Travelling"; already up to date`);
  });

  it("import of a different conversation with the same id exits 3, and --new-id imports it beside", async () => {
    const [conversation] = await seed(dataHome, ["Theirs"]);
    const outDir = home();
    const file = path.join(outDir, "theirs.tar.gz");
    expect((await runAtrium(["export", conversation.conversationId, "-o", file], { home: dataHome })).status).toBe(0);

    const otherHome = home();
    const store = new Store(otherHome, { log: () => {} });
    const rootSessionId = store.newId();
    await store.appendMetadata(conversation.conversationId, {
      type: "conversation.created",
      conversationId: conversation.conversationId,
      title: "Mine",
      titleSource: "owner",
      agent: "default",
      model: "offline",
      effort: null,
      cwd: "/tmp",
      executor: "local",
      rootSessionId,
    });
    await store.close();

    const clash = await runAtrium(["import", file], { home: otherHome });
    expect(clash.status).toBe(3);
    expect(clash.stderr).toContain(`conversation ${conversation.conversationId}: a different conversation has this id here`);
    expect(clash.stderr).toContain("--new-id");

    const renamed = await runAtrium(["import", file, "--new-id"], { home: otherHome });
    expect(renamed.stderr).toBe("");
    expect(renamed.status).toBe(0);
    const newId = /Imported (\w{26}) "Theirs"/.exec(renamed.stdout)?.[1];
    expect(newId).toBeDefined();
    expect(newId).not.toBe(conversation.conversationId);
    expect(await items(otherHome, newId!)).toEqual(await items(dataHome, conversation.conversationId));
  });

  it("token prints the access token and stores it with mode 0600", async () => {
    const first = await runAtrium(["token"], { home: dataHome });
    expect(first.status).toBe(0);
    const token = first.stdout.trim();
    expect(token).toMatch(/^[\w-]{20,}$/);
    const tokenPath = path.join(dataHome, "token");
    expect(fs.readFileSync(tokenPath, "utf8").trim()).toBe(token);
    expect(fs.statSync(tokenPath).mode & 0o777).toBe(0o600);

    const second = await runAtrium(["token"], { home: dataHome });
    expect(second.stdout.trim()).toBe(token);
  });

});
