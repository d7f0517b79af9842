import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openIndex } from "@/lib/store/database";
import { makeTempHome } from "../../support/temp-home";

const MIGRATIONS = path.resolve(import.meta.dirname, "..", "..", "..", "drizzle");

/** A copy of the project's migrations with one more (a new table), as the next release would ship. */
function migrationsWithOneMore(target: string): string {
  fs.cpSync(MIGRATIONS, target, { recursive: true });
  const journalPath = path.join(target, "meta", "_journal.json");
  const journal = JSON.parse(fs.readFileSync(journalPath, "utf8")) as { entries: Array<{ idx: number; version: string; when: number; tag: string; breakpoints: boolean }> };
  const last = journal.entries.at(-1)!;
  const tag = `${String(last.idx + 1).padStart(4, "0")}_test-extra`;
  journal.entries.push({ ...last, idx: last.idx + 1, when: last.when + 1000, tag });
  fs.writeFileSync(journalPath, JSON.stringify(journal, null, 2));
  fs.writeFileSync(path.join(target, `${tag}.sql`), "CREATE TABLE `test_extra` (`id` text PRIMARY KEY NOT NULL);\n");
  return target;
}

describe("index migrations at open", () => {
  let temp: ReturnType<typeof makeTempHome>;
  beforeEach(() => (temp = makeTempHome()));
  afterEach(() => temp.cleanup());

  const tables = (file: string, folder?: string) => {
    const index = openIndex(file, { migrationsFolder: folder });
    try {
      const names = index.$client.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
      const applied = index.$client.prepare("SELECT count(*) FROM __drizzle_migrations").pluck().get() as number;
      return { names, applied, version: index.$client.pragma("user_version", { simple: true }) as number };
    } finally {
      index.$client.close();
    }
  };

  it("a current index is reopened as it is; a new migration is still applied on the next open", () => {
    const file = path.join(temp.home, "metadata.db");
    const first = tables(file);
    expect(first.names).toContain("conversations");
    expect(first.version).not.toBe(0);
    expect(tables(file)).toEqual(first);

    const next = tables(file, migrationsWithOneMore(path.join(temp.home, "drizzle-next")));
    expect(next.names).toContain("test_extra");
    expect(next.applied).toBe(first.applied + 1);
    expect(next.version).not.toBe(first.version);
  });

  it("an index whose migrations were applied without the fingerprint (an older Atrium) gets it", () => {
    const file = path.join(temp.home, "metadata.db");
    const first = tables(file);
    const client = openIndex(file).$client;
    client.pragma("user_version = 0");
    client.close();
    expect(tables(file)).toEqual(first);
  });
});
