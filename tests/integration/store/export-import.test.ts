import fs from "node:fs";
import path from "node:path";
import * as tar from "tar";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AtriumError } from "@/lib/errors";
import { exportConversation, ImportClashError, importConversations } from "@/lib/store/export-import";
import { catchUpIndex, ingestConversation } from "@/lib/store/ingest";
import { Store } from "@/lib/store/store";
import { makeTempHome } from "../../support/temp-home";
import { appendExchange, createConversation, indexedItems, type BuiltConversation } from "./conversation-fixtures";

describe("export and import", () => {
  const temps: Array<ReturnType<typeof makeTempHome>> = [];
  const stores: Store[] = [];
  let outDir: string;

  const home = () => {
    const temp = makeTempHome();
    temps.push(temp);
    return temp.home;
  };
  const openStore = (at: string) => {
    const store = new Store(at, { log: () => {} });
    stores.push(store);
    return store;
  };
  const archive = (name: string) => path.join(outDir, name);
  const exportTo = (
    name: string,
    conversationId = conversation.conversationId,
    options: { withAncestors?: boolean; from?: Store } = {},
  ) =>
    exportConversation((options.from ?? source).paths.home, conversationId, {
      withAncestors: options.withAncestors,
      output: archive(name),
    });
  const directoryFiles = (directory: string): Record<string, string> =>
    Object.fromEntries(
      (fs.readdirSync(directory, { recursive: true, withFileTypes: true }) as fs.Dirent[])
        .filter((entry) => entry.isFile())
        .map((entry) => {
          const full = path.join(entry.parentPath, entry.name);
          return [path.relative(directory, full), fs.readFileSync(full, "utf8")];
        }),
    );

  let source: Store;
  let conversation: BuiltConversation;
  let artifactId: string;

  beforeEach(async () => {
    outDir = home();
    source = openStore(home());
    conversation = await createConversation(source, { title: "Moving day", texts: ["pack the boxes", "load the van"] });
    artifactId = source.newId();
    fs.mkdirSync(source.paths.artifacts(conversation.conversationId));
    fs.writeFileSync(source.paths.artifact(conversation.conversationId, artifactId), "a large tool output\n".repeat(100));
    fs.mkdirSync(source.paths.attachments(conversation.conversationId));
    fs.writeFileSync(path.join(source.paths.attachments(conversation.conversationId), `${source.newId()}-list.txt`), "boxes: 12\n");
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
    temps.splice(0).forEach((temp) => temp.cleanup());
  });

  it("moves a conversation to another data directory with every file, and the same items", async () => {
    const result = await exportTo("moving.tar.gz");
    expect(result).toEqual({ file: archive("moving.tar.gz"), conversationIds: [conversation.conversationId], missingAncestors: [] });

    const target = openStore(home());
    const imported = await importConversations(target, result.file);
    expect(imported.conversations).toEqual([
      { conversationId: conversation.conversationId, sourceId: conversation.conversationId, title: "Moving day", status: "added", records: 14, note: null },
    ]);
    expect(indexedItems(target, conversation.conversationId)).toEqual(indexedItems(source, conversation.conversationId));
    expect(indexedItems(target, conversation.conversationId).map((item) => item.text)).toContain("load the van");
    expect(directoryFiles(target.paths.conversation(conversation.conversationId))).toEqual(
      directoryFiles(source.paths.conversation(conversation.conversationId)),
    );
    expect(fs.readdirSync(target.paths.home).filter((name) => name.startsWith(".import-"))).toEqual([]);
  });

  it("imports a conversation directory as well as an archive", async () => {
    const target = openStore(home());
    const imported = await importConversations(target, source.paths.conversation(conversation.conversationId));
    expect(imported.conversations.map((entry) => entry.status)).toEqual(["added"]);
    expect(indexedItems(target, conversation.conversationId)).toEqual(indexedItems(source, conversation.conversationId));
  });

  it("updates from a newer copy of the same conversation and keeps a newer local copy over an older import", async () => {
    const older = await exportTo("older.tar.gz");
    const target = openStore(home());
    await importConversations(target, older.file);
    expect((await importConversations(target, older.file)).conversations[0]).toMatchObject({ status: "unchanged", note: "already up to date" });

    await appendExchange(source, conversation, "unload at the new house");
    const newer = await exportTo("newer.tar.gz");
    expect((await importConversations(target, newer.file)).conversations[0]).toMatchObject({ status: "replaced", records: 20 });
    expect(indexedItems(target, conversation.conversationId)).toEqual(indexedItems(source, conversation.conversationId));

    const again = await importConversations(target, older.file);
    expect(again.conversations[0]).toMatchObject({ status: "unchanged", note: "the copy here is newer; kept it" });
    expect(indexedItems(target, conversation.conversationId).map((item) => item.text)).toContain("unload at the new house");
  });

  it("refuses a different conversation with the same id, and imports it beside the other with newId", async () => {
    const exported = await exportTo("theirs.tar.gz");
    // A hand-edited copy: same id and inner ids, a different conversation.created line.
    const target = openStore(home());
    const localDirectory = target.paths.conversation(conversation.conversationId);
    fs.cpSync(source.paths.conversation(conversation.conversationId), localDirectory, { recursive: true });
    const metadata = fs.readFileSync(target.paths.metadata(conversation.conversationId), "utf8");
    fs.writeFileSync(target.paths.metadata(conversation.conversationId), metadata.replace('"title":"Moving day"', '"title":"Mine, edited"'));
    ingestConversation(target, conversation.conversationId);
    const localFiles = directoryFiles(localDirectory);
    const localItems = indexedItems(target, conversation.conversationId);

    const refusal = await importConversations(target, exported.file).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ImportClashError);
    expect((refusal as ImportClashError).message).toContain(conversation.conversationId);
    expect((refusal as ImportClashError).message).toContain("--new-id");
    expect(directoryFiles(localDirectory)).toEqual(localFiles);

    const imported = await importConversations(target, exported.file, { newId: true });
    const [copy] = imported.conversations;
    expect(copy).toMatchObject({ sourceId: conversation.conversationId, status: "added", title: "Moving day" });
    expect(copy.conversationId).not.toBe(conversation.conversationId);
    expect(copy.note).toContain(copy.conversationId);

    expect(directoryFiles(localDirectory)).toEqual(localFiles);
    expect(indexedItems(target, conversation.conversationId)).toEqual(localItems);
    expect(indexedItems(target, copy.conversationId)).toEqual(indexedItems(source, conversation.conversationId));
    const head = target.readMetadata(copy.conversationId).records[0].record;
    expect(head).toMatchObject({ type: "conversation.created", conversationId: copy.conversationId });
    // Fresh inner ids too: the two conversations share no session, turn or item row.
    const client = target.index.$client;
    for (const table of ["sessions", "turns", "items"]) {
      const rows = client.prepare(`SELECT conversation_id, count(*) AS n FROM ${table} GROUP BY conversation_id ORDER BY conversation_id`).all();
      expect(rows).toHaveLength(2);
    }
    expect(target.sessionFiles(copy.conversationId)).not.toContain(conversation.rootSessionId);
    expect(fs.readdirSync(target.paths.artifacts(copy.conversationId))).toEqual([artifactId]);
  });

  it("bundles the chain of parents with withAncestors and reports a parent that is not here", async () => {
    const grandparent = conversation;
    const parent = await createConversation(source, { title: "Parent", forkedFrom: { conversationId: grandparent.conversationId, itemId: grandparent.messageIds[0] } });
    const child = await createConversation(source, { title: "Child", forkedFrom: { conversationId: parent.conversationId, itemId: parent.messageIds[0] } });

    const alone = await exportTo("alone.tar.gz", child.conversationId);
    expect(alone.conversationIds).toEqual([child.conversationId]);
    const bundle = await exportTo("bundle.tar.gz", child.conversationId, { withAncestors: true });
    expect(bundle).toMatchObject({ conversationIds: [child.conversationId, parent.conversationId, grandparent.conversationId], missingAncestors: [] });

    const target = openStore(home());
    const imported = await importConversations(target, bundle.file);
    expect(imported.conversations.map((entry) => [entry.conversationId, entry.status]).sort()).toEqual(
      [child, parent, grandparent].map((entry) => [entry.conversationId, "added"]).sort(),
    );
    const forkedFrom = target.index.$client.prepare(`SELECT forked_from_conversation_id AS parent FROM conversations WHERE id = ?`);
    expect(forkedFrom.get(child.conversationId)).toEqual({ parent: parent.conversationId });

    const elsewhere = openStore(home());
    await importConversations(elsewhere, alone.file);
    const partial = await exportTo("partial.tar.gz", child.conversationId, { withAncestors: true, from: elsewhere });
    expect(partial).toMatchObject({ conversationIds: [child.conversationId], missingAncestors: [parent.conversationId] });
  });

  it("treats two copies that each went on separately as a clash, and newId keeps both", async () => {
    const target = openStore(home());
    await importConversations(target, (await exportTo("base.tar.gz")).file);
    await appendExchange(source, conversation, "said over there");
    await target.appendMetadata(conversation.conversationId, { type: "conversation.updated", title: "Renamed over here" });
    const theirs = await exportTo("theirs.tar.gz");

    const refusal = await importConversations(target, theirs.file).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ImportClashError);
    expect((refusal as Error).message).toContain("each hold records the other lacks");
    const both = await importConversations(target, theirs.file, { newId: true });
    expect(both.conversations[0].status).toBe("added");
    expect(indexedItems(target, both.conversations[0].conversationId).map((item) => item.text)).toContain("said over there");
    expect(target.index.$client.prepare(`SELECT title FROM conversations WHERE id = ?`).get(conversation.conversationId)).toEqual({ title: "Renamed over here" });
  });

  it("with newId, a fork bundled with its renumbered parent points at the parent's new id", async () => {
    const child = await createConversation(source, { title: "Child", forkedFrom: { conversationId: conversation.conversationId, itemId: conversation.messageIds[1] } });
    const bundle = await exportTo("fork.tar.gz", child.conversationId, { withAncestors: true });
    // Here a different conversation already has the parent's id.
    const target = openStore(home());
    const other = await createConversation(target, { title: "Unrelated" });
    fs.renameSync(target.paths.conversation(other.conversationId), target.paths.conversation(conversation.conversationId));
    const metadata = fs.readFileSync(target.paths.metadata(conversation.conversationId), "utf8");
    fs.writeFileSync(target.paths.metadata(conversation.conversationId), metadata.replaceAll(other.conversationId, conversation.conversationId));
    expect(catchUpIndex(target).map((outcome) => outcome.status)).toEqual(["indexed"]);

    const imported = await importConversations(target, bundle.file, { newId: true });
    const byTitle = Object.fromEntries(imported.conversations.map((entry) => [entry.title, entry]));
    expect(byTitle.Child).toMatchObject({ conversationId: child.conversationId, status: "added" });
    expect(byTitle["Moving day"].conversationId).not.toBe(conversation.conversationId);
    const row = target.index.$client
      .prepare(`SELECT forked_from_conversation_id AS parent, forked_from_item_id AS item FROM conversations WHERE id = ?`)
      .get(child.conversationId) as { parent: string; item: string };
    expect(row.parent).toBe(byTitle["Moving day"].conversationId);
    const parentItem = target.index.$client.prepare(`SELECT conversation_id, text FROM items WHERE id = ?`).get(row.item);
    expect(parentItem).toEqual({ conversation_id: byTitle["Moving day"].conversationId, text: "load the van" });
  });

  it("refuses to export a conversation that is not here or was deleted", async () => {
    const missing = source.newId();
    await expect(exportTo("x.tar.gz", missing)).rejects.toMatchObject({ code: "not_found" });
    await source.appendMetadata(conversation.conversationId, { type: "conversation.deleted", conversationId: conversation.conversationId });
    await expect(exportTo("y.tar.gz")).rejects.toMatchObject({ code: "not_found" });
    expect(fs.readdirSync(outDir)).toEqual([]);
  });

  describe("refuses unsafe or malformed sources and writes nothing", () => {
    const expectRefused = async (target: Store, file: string, fragment: string) => {
      const error = await importConversations(target, file).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(AtriumError);
      expect((error as Error).message).toContain(fragment);
      expect(fs.readdirSync(target.paths.conversations)).toEqual([]);
      expect(fs.readdirSync(target.paths.home).filter((name) => name.startsWith(".import-"))).toEqual([]);
    };

    it("a symbolic link inside the conversation", async () => {
      fs.symlinkSync("/etc/passwd", path.join(source.paths.artifacts(conversation.conversationId), source.newId()));
      const exported = await exportTo("link.tar.gz");
      const target = openStore(home());
      await expectRefused(target, exported.file, "SymbolicLink entries are refused");
      await expectRefused(target, source.paths.conversation(conversation.conversationId), "SymbolicLink entries are refused");
    });

    it("a path climbing out with ..", async () => {
      const staging = path.join(home(), "inner");
      fs.mkdirSync(staging);
      fs.writeFileSync(path.join(path.dirname(staging), "escape.txt"), "outside\n");
      const file = archive("climb.tar.gz");
      await tar.c({ gzip: true, file, cwd: staging, preservePaths: true }, ["../escape.txt"]);
      const target = openStore(home());
      await expectRefused(target, file, '"..');
      expect(fs.existsSync(path.join(path.dirname(target.paths.home), "escape.txt"))).toBe(false);
    });

    it("names that are not conversation ids, and a metadata.jsonl that does not begin with conversation.created", async () => {
      const staging = home();
      fs.mkdirSync(path.join(staging, "not-an-id"));
      fs.writeFileSync(path.join(staging, "not-an-id", "metadata.jsonl"), "{}\n");
      const file = archive("names.tar.gz");
      await tar.c({ gzip: true, file, cwd: staging }, ["not-an-id"]);
      const target = openStore(home());
      await expectRefused(target, file, "not-an-id is not a conversation id");

      const badId = source.newId();
      fs.mkdirSync(path.join(staging, badId));
      fs.writeFileSync(path.join(staging, badId, "metadata.jsonl"), `${JSON.stringify({ v: 1, seq: 1, at: "2025-01-01T00:00:00.000Z", type: "conversation.updated", title: "x" })}\n`);
      const headless = archive("headless.tar.gz");
      await tar.c({ gzip: true, file: headless, cwd: staging }, [badId]);
      await expectRefused(target, headless, "does not begin with a conversation.created record");
    });

    it("a file that is not an archive", async () => {
      const file = archive("plain.tar.gz");
      fs.writeFileSync(file, "just some text, not gzip\n".repeat(40));
      const target = openStore(home());
      await expectRefused(target, file, "is not a readable .tar.gz export");
    });
  });
});
