import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { IndexBatchError, IndexGroupCommit, sqliteCause } from "@/lib/store/index-group-commit";

/** IndexGroupCommit on a real SQLite database: updates queued in one turn of the event loop share one transaction. */
describe("index group commit", () => {
  let client: Database.Database;
  let group: IndexGroupCommit;
  let insert: (name: string) => void;
  let directory: string;
  let commits: boolean[];
  let failCommit: Error | null;

  beforeEach(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), "atrium-group-commit-"));
    client = new Database(path.join(directory, "index.db"));
    client.pragma("journal_mode = WAL");
    client.exec(`
      CREATE TABLE parent (id TEXT PRIMARY KEY);
      CREATE TABLE child (id TEXT PRIMARY KEY, parent_id TEXT REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);
    `);
    client.pragma("foreign_keys = ON");
    const statement = client.prepare("INSERT INTO parent (id) VALUES (?)");
    // As the index writer does: every update opens its own transaction (a savepoint inside the batch).
    const own = client.transaction((name: string) => statement.run(name));
    insert = (name) => own(name);
    commits = [];
    failCommit = null;
    group = new IndexGroupCommit(client, () => {
      commits.push(client.inTransaction);
      if (failCommit) throw failCommit;
    });
  });

  afterEach(() => {
    client.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });

  /** As IndexCatchUp does: an update catches a failure of its own transaction and returns it (its cause kept). */
  const caught = (work: () => void) => () => {
    try {
      insertOwn(work);
      return null;
    } catch (error) {
      return new Error("typed by the caller", { cause: error });
    }
  };
  const insertOwn = (work: () => void) => client.transaction(work)();
  const causeCode = (outcome: PromiseSettledResult<unknown>) => {
    expect(outcome.status).toBe("rejected");
    const reason = (outcome as PromiseRejectedResult).reason as unknown;
    expect(reason).toBeInstanceOf(IndexBatchError);
    return (sqliteCause(reason) as { code?: string }).code;
  };
  /** The next page the database needs is refused: SQLite answers SQLITE_FULL and rolls the whole transaction back, as on a full disk. */
  const fillDisk = () => client.pragma(`max_page_count = ${client.pragma("page_count", { simple: true }) as number}`);
  const big = (name: string) => client.prepare("INSERT INTO parent (id) VALUES (?)").run(`${name}${"x".repeat(64 * 1024)}`);

  const parents = () => (client.prepare("SELECT id FROM parent ORDER BY id").all() as Array<{ id: string }>).map((row) => row.id);

  it("applies updates queued together in one transaction, in order, and answers each its own result", async () => {
    const seen: boolean[] = [];
    const results = await Promise.all(
      ["a", "b", "c"].map((name) =>
        group.run(() => {
          seen.push(client.inTransaction);
          insert(name);
          return name.toUpperCase();
        }),
      ),
    );
    expect(results).toEqual(["A", "B", "C"]);
    expect(seen).toEqual([true, true, true]);
    expect(parents()).toEqual(["a", "b", "c"]);
    expect(client.inTransaction).toBe(false);
  });

  it("an update that throws rolls back and fails alone; the others are committed", async () => {
    const outcomes = await Promise.allSettled([
      group.run(() => insert("a")),
      group.run(() => {
        insert("b");
        throw new Error("a bug in this update");
      }),
      group.run(() => insert("c")),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((outcomes[1] as PromiseRejectedResult).reason).toHaveProperty("message", "a bug in this update");
    expect(parents()).toEqual(["a", "c"]);
  });

  it("a commit that fails fails every update of the batch, and none of them is applied", async () => {
    const orphan = client.prepare("INSERT INTO child (id, parent_id) VALUES ('x', 'nobody')");
    const outcomes = await Promise.allSettled([group.run(() => insert("a")), group.run(() => insert("b")), group.run(() => orphan.run())]);
    expect(outcomes.map(causeCode)).toEqual(["SQLITE_CONSTRAINT_FOREIGNKEY", "SQLITE_CONSTRAINT_FOREIGNKEY", "SQLITE_CONSTRAINT_FOREIGNKEY"]);
    expect(parents()).toEqual([]);
    expect(client.inTransaction).toBe(false);
  });

  it("the commit seam runs once per batch, in its transaction, just before the real COMMIT; a throw there fails the whole batch", async () => {
    await Promise.all([group.run(() => insert("a")), group.run(() => insert("b"))]);
    expect(commits).toEqual([true]);
    failCommit = Object.assign(new Error("disk I/O error (injected fault)"), { code: "SQLITE_IOERR_WRITE" });
    const outcomes = await Promise.allSettled([group.run(() => insert("c")), group.run(() => insert("d"))]);
    expect(outcomes.map(causeCode)).toEqual(["SQLITE_IOERR_WRITE", "SQLITE_IOERR_WRITE"]);
    expect(parents()).toEqual(["a", "b"]);
    expect(client.inTransaction).toBe(false);
  });

  it.each([1, 3])("a real SQLITE_FULL that rolls back a batch of %i fails each update with SQLITE_FULL, not the release or commit after it", async (size) => {
    insert("before");
    fillDisk();
    const updates = Array.from({ length: size - 1 }, (_, index) => group.run(caught(() => insert(`small${index}`))));
    updates.push(group.run(caught(() => big("big"))));
    const outcomes = await Promise.allSettled(updates);
    expect(outcomes.map(causeCode)).toEqual(Array.from({ length: size }, () => "SQLITE_FULL"));
    expect(parents()).toEqual(["before"]);
    expect(client.inTransaction).toBe(false);
    expect(commits, "no COMMIT was tried").toEqual([]);
  });

  it("a transaction SQLite ended under an update that did not throw fails the whole batch, the updates before it included", async () => {
    const rollback = client.prepare("ROLLBACK");
    const outcomes = await Promise.allSettled([
      group.run(() => insert("a")),
      group.run(() => {
        rollback.run();
        return "rolled back";
      }),
      group.run(() => insert("c")),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["rejected", "rejected", "rejected"]);
    for (const outcome of outcomes) expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(IndexBatchError);
    expect(parents()).toEqual([]);
    expect(client.inTransaction).toBe(false);
  });

  it("flush applies what is queued at once, an update alone in its own transaction", async () => {
    const alone = group.run(() => {
      insert("a");
      return client.inTransaction;
    });
    group.flush();
    expect(parents()).toEqual(["a"]);
    expect(client.inTransaction).toBe(false);
    await expect(alone).resolves.toBe(true);
    const failing = group.run(() => {
      insert("b");
      throw new Error("alone and failing");
    });
    group.flush();
    await expect(failing).rejects.toThrow("alone and failing");
    expect(parents()).toEqual(["a"]);
  });
});
