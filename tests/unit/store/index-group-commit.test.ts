import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { IndexGroupCommit } from "@/lib/store/index-group-commit";

/** IndexGroupCommit on a real SQLite database: updates queued in one turn of the event loop share one transaction. */
describe("index group commit", () => {
  let client: Database.Database;
  let group: IndexGroupCommit;
  let insert: (name: string) => void;

  beforeEach(() => {
    client = new Database(":memory:");
    client.exec(`
      CREATE TABLE parent (id TEXT PRIMARY KEY);
      CREATE TABLE child (id TEXT PRIMARY KEY, parent_id TEXT REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);
    `);
    client.pragma("foreign_keys = ON");
    const statement = client.prepare("INSERT INTO parent (id) VALUES (?)");
    // As the index writer does: every update opens its own transaction (a savepoint inside the batch).
    const own = client.transaction((name: string) => statement.run(name));
    insert = (name) => own(name);
    group = new IndexGroupCommit(client);
  });

  afterEach(() => client.close());

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
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["rejected", "rejected", "rejected"]);
    for (const outcome of outcomes) expect((outcome as PromiseRejectedResult).reason).toHaveProperty("code", "SQLITE_CONSTRAINT_FOREIGNKEY");
    expect(parents()).toEqual([]);
    expect(client.inTransaction).toBe(false);
  });

  it("a transaction SQLite ended under an update fails the whole batch, the updates before it included", async () => {
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
