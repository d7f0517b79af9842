import fs from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { Readable } from "node:stream";
import zlib from "node:zlib";
import * as tar from "tar";
import { afterEach, describe, expect, it } from "vitest";
import { AtriumError } from "@/lib/errors";
import { exportConversation, importConversations, type ImportOptions } from "@/lib/store/export-import";
import { Store } from "@/lib/store/store";
import { makeTempHome } from "../../support/temp-home";
import { createConversation } from "../store/conversation-fixtures";

/** Issue 21, finding 9: modes normalized; entry count and size checked before extracting; memory flat. */
describe("import archive limits", () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => {
    for (const cleanup of cleanups.splice(0)) cleanup();
  });
  const temp = () => {
    const made = makeTempHome();
    cleanups.push(made.cleanup);
    return made.home;
  };

  /** A real exported conversation, unpacked into a fresh folder for the test to add to. */
  async function unpackedExport(): Promise<{ conversationId: string; unpacked: string }> {
    const source = new Store(temp(), { log: () => {} });
    const { conversationId } = await createConversation(source, { texts: ["hello"] });
    await source.close();
    const outDir = temp();
    const exported = path.join(outDir, "export.tar.gz");
    await exportConversation(source.paths.home, conversationId, { output: exported });
    const unpacked = path.join(outDir, "unpacked");
    fs.mkdirSync(unpacked);
    await tar.x({ file: exported, cwd: unpacked });
    return { conversationId, unpacked };
  }

  async function importInto(home: string, bundle: string, options: ImportOptions = {}) {
    const store = new Store(home, { log: () => {} });
    try {
      return await importConversations(store, bundle, options);
    } finally {
      await store.close();
    }
  }

  it("a setuid attachment comes out 0755 and a setgid data file 0644", async () => {
    const { conversationId, unpacked } = await unpackedExport();
    const attachments = path.join(unpacked, conversationId, "attachments");
    fs.mkdirSync(attachments);
    const tool = path.join(attachments, "01JATTACHMENT0000000000000-tool.sh");
    fs.writeFileSync(tool, "#!/bin/sh\necho hi\n");
    fs.chmodSync(tool, 0o4755);
    const note = path.join(attachments, "01JATTACHMENT0000000000001-note.txt");
    fs.writeFileSync(note, "note");
    fs.chmodSync(note, 0o2664);
    fs.chmodSync(attachments, 0o1777);
    const bundle = path.join(temp(), "setuid.tar.gz");
    await tar.c({ gzip: true, cwd: unpacked, file: bundle }, [conversationId]);

    const home = temp();
    await importInto(home, bundle);
    const imported = path.join(home, "conversations", conversationId, "attachments");
    const mode = (file: string) => (fs.statSync(file).mode & 0o7777).toString(8);
    expect(mode(path.join(imported, path.basename(tool)))).toBe("755");
    expect(mode(path.join(imported, path.basename(note)))).toBe("644");
    expect(mode(imported)).toBe("755");
  });

  it("an archive of more than 10,000 entries is refused before anything is extracted", async () => {
    const { conversationId, unpacked } = await unpackedExport();
    const artifacts = path.join(unpacked, conversationId, "artifacts");
    fs.mkdirSync(artifacts);
    for (let index = 0; index < 10_000; index += 1) fs.writeFileSync(path.join(artifacts, `a${index}`), "");
    const bundle = path.join(temp(), "many.tar.gz");
    await tar.c({ gzip: true, cwd: unpacked, file: bundle }, [conversationId]);

    const home = temp();
    const refused = await importInto(home, bundle).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AtriumError);
    expect((refused as AtriumError).message).toContain("more than 10000 entries");
    expect(fs.readdirSync(path.join(home, "conversations"))).toEqual([]);
    // The staging folder is gone too.
    expect(fs.readdirSync(home).filter((name) => name.startsWith(".import-"))).toEqual([]);
  });

  it("a gzip bomb past the size limit is refused at its header, with memory staying flat", async () => {
    const { conversationId } = await unpackedExport();
    const bombBytes = 200 * 1024 * 1024;
    const bundle = path.join(temp(), "bomb.tar.gz");
    await pipeline(bombEntries(conversationId, bombBytes), zlib.createGzip({ level: 1 }), fs.createWriteStream(bundle));
    expect(fs.statSync(bundle).size).toBeLessThan(2 * 1024 * 1024);

    const home = temp();
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    const refused = await importInto(home, bundle, { limits: { entries: 10_000, bytes: 64 * 1024 * 1024 } }).catch((error: unknown) => error);
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    expect((refused as AtriumError).message).toContain("unpacks to more than 67108864 bytes");
    expect(fs.readdirSync(path.join(home, "conversations"))).toEqual([]);
    expect(peak - before).toBeLessThan(64 * 1024 * 1024);
  });
});

/** A tar stream: the conversation directory, then one file of `bytes` zeros, made on the fly. */
function bombEntries(conversationId: string, bytes: number): Readable {
  const header = (entryPath: string, type: "Directory" | "File", size: number) => {
    const block = Buffer.alloc(512);
    new tar.Header({ path: entryPath, type, size, mode: type === "File" ? 0o644 : 0o755, mtime: new Date(0) }).encode(block);
    return block;
  };
  const chunk = Buffer.alloc(1024 * 1024);
  function* blocks(): Generator<Buffer> {
    yield header(`${conversationId}/`, "Directory", 0);
    yield header(`${conversationId}/artifacts/`, "Directory", 0);
    yield header(`${conversationId}/artifacts/01JBOMB00000000000000000000`, "File", bytes);
    for (let written = 0; written < bytes; written += chunk.length) yield chunk;
    yield Buffer.alloc(1024);
  }
  return Readable.from(blocks());
}
