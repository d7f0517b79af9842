import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openIndex, writeIndexTemplate } from "@/lib/store/database";
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

  /** Everything an index is made of, as SQLite and drizzle see it. */
  const shape = (file: string) => {
    const index = openIndex(file, { templateFolder: null });
    try {
      const client = index.$client;
      return {
        schema: client.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name").all(),
        migrations: client.prepare("SELECT hash, created_at FROM __drizzle_migrations ORDER BY id").all(),
        version: client.pragma("user_version", { simple: true }),
        journal: client.pragma("journal_mode", { simple: true }),
      };
    } finally {
      index.$client.close();
    }
  };

  /** The template with a mark in it, so a copy of it can be told from a migrated index. */
  const markedTemplate = (folder: string) => {
    fs.mkdirSync(folder, { recursive: true });
    const template = writeIndexTemplate(folder, MIGRATIONS);
    const client = openIndex(template, { templateFolder: null }).$client;
    client.exec("CREATE TABLE template_mark (id INTEGER)");
    client.pragma("wal_checkpoint(TRUNCATE)");
    client.close();
    return template;
  };

  it("a new index begins as a copy of the template for its migrations, the same as a migrated one, private to its owner", () => {
    const folder = path.join(temp.home, "templates");
    const migrated = path.join(temp.home, "migrated.db");
    openIndex(migrated, { templateFolder: null }).$client.close();
    writeIndexTemplate(folder, MIGRATIONS);
    const copied = path.join(temp.home, "copied.db");
    openIndex(copied, { templateFolder: folder }).$client.close();
    expect(shape(copied)).toEqual(shape(migrated));
    expect(shape(copied).journal).toBe("wal");
    expect(fs.statSync(copied).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(temp.home).filter((name) => name.includes("template.tmp"))).toEqual([]);

    markedTemplate(folder);
    const fromMarked = path.join(temp.home, "from-marked.db");
    openIndex(fromMarked, { templateFolder: folder }).$client.close();
    expect(tables(fromMarked).names).toEqual(expect.arrayContaining(["template_mark", "conversations"]));
  });

  it("a template is used only for a new index and only for the migrations it was made with", () => {
    const folder = path.join(temp.home, "templates");
    markedTemplate(folder);
    const existing = path.join(temp.home, "existing.db");
    openIndex(existing, { templateFolder: null }).$client.close();
    const reopened = openIndex(existing, { templateFolder: folder });
    reopened.$client.close();
    expect(tables(existing).names).not.toContain("template_mark");

    const next = path.join(temp.home, "next.db");
    const nextFolder = migrationsWithOneMore(path.join(temp.home, "drizzle-next"));
    openIndex(next, { migrationsFolder: nextFolder, templateFolder: folder }).$client.close();
    const names = tables(next, nextFolder).names;
    expect(names).toContain("test_extra");
    expect(names).not.toContain("template_mark");
  });

  it("where the template cannot be copied into place, a new index is migrated as always", () => {
    const folder = path.join(temp.home, "templates");
    markedTemplate(folder);
    const file = path.join(temp.home, "metadata.db");
    // The copy's own name is taken by a folder that cannot be removed without recursion.
    fs.mkdirSync(path.join(temp.home, "metadata.db.template.tmp", "inside"), { recursive: true });
    openIndex(file, { templateFolder: folder }).$client.close();
    const names = tables(file).names;
    expect(names).toContain("conversations");
    expect(names).not.toContain("template_mark");
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
