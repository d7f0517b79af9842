import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { exportConversation, importConversations } from "@/lib/store/export-import";
import { Store } from "@/lib/store/store";
import { startFakeOpenAIServer, type FakeOpenAIServer } from "../../support/fake-openai";
import { startHarness, type Harness } from "../../support/runtime-harness";
import { makeTempHome } from "../../support/temp-home";

let harness: Harness;
let fake: FakeOpenAIServer | null = null;
afterEach(async () => {
  await harness?.close();
  await fake?.close();
  fake = null;
});

const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

async function withFakeModels() {
  fake = await startFakeOpenAIServer();
  harness = await startHarness({
    models: [
      { id: "vision", provider: "openai-compatible", baseURL: fake.url, model: "fake-model", attachments: ["image"] },
      { id: "plain", provider: "openai-compatible", baseURL: fake.url, model: "fake-model" },
    ],
    defaultModel: "vision",
  });
  return fake;
}

describe("attachments", () => {
  it("round-trip: upload, message item reference, image part for a model that takes images, text note for one that does not, export/import", async () => {
    const server = await withFakeModels();
    const image = await harness.runtime.upload("dot.png", "image/png", PNG);
    const notes = await harness.runtime.upload("notes.txt", "text/plain", Buffer.from("remember the milk\n"));
    const created = await harness.runtime.createConversation({ text: "look at these", attachments: [image.id, notes.id] });
    const id = created.conversation.id;
    await harness.turnEnded(id, created.turn.id);
    const item = harness.runtime.listItems(id, {}).items[0];
    expect(item.attachments).toEqual([image, notes]);
    expect(fs.existsSync(path.join(harness.home, "uploads", `${image.id}.json`))).toBe(false);
    expect(fs.readFileSync(harness.runtime.reads.attachmentFile(id, image.id).path)).toEqual(PNG);

    const sent = server.requests[0].body.messages.find((message: { role: string }) => message.role === "user").content;
    expect(sent.find((part: { type: string }) => part.type === "image_url").image_url.url).toMatch(/^data:image\/png;base64,/);
    expect(JSON.stringify(sent)).toContain("remember the milk");

    await harness.runtime.updateConversation(id, { model: "plain" });
    const next = await harness.runtime.sendMessage(id, { text: "and now?", mode: "auto" });
    await harness.turnEnded(id, next.turn!.id);
    const plain = JSON.stringify(server.requests.at(-1)!.body.messages);
    expect(plain).not.toContain("image_url");
    expect(plain).toContain("cannot take images; it was left out");

    const target = makeTempHome();
    try {
      const file = path.join(target.home, "bundle.tar.gz");
      await exportConversation(harness.home, id, { output: file });
      const store = new Store(target.home, { log: () => {} });
      await importConversations(store, file, {});
      await store.close();
      expect(fs.readFileSync(path.join(target.home, "conversations", id, "attachments", `${image.id}-dot.png`))).toEqual(PNG);
    } finally {
      target.cleanup();
    }
  });

  it("rejects oversized and disallowed files with clear 4xx codes", async () => {
    harness = await startHarness();
    await expect(harness.runtime.upload("big.txt", "text/plain", Buffer.alloc(20 * 1024 * 1024 + 1))).rejects.toThrow(
      expect.objectContaining({ code: "payload_too_large" }),
    );
    await expect(harness.runtime.upload("tool.exe", "application/x-msdownload", Buffer.from("MZ"))).rejects.toThrow(
      expect.objectContaining({ code: "unsupported_media_type" }),
    );
    await expect(harness.runtime.createConversation({ text: "x", attachments: ["01JAAAAAAAAAAAAAAAAAAAAAAA"] })).rejects.toMatchObject({ code: "not_found" });
  });

  it("copies the referenced attachment into a fork", async () => {
    harness = await startHarness();
    const image = await harness.runtime.upload("dot.png", "image/png", PNG);
    const created = await harness.runtime.createConversation({ text: "keep this", attachments: [image.id] });
    await harness.turnEnded(created.conversation.id, created.turn.id);
    const fork = await harness.runtime.fork(created.conversation.id, {});
    expect(fs.readFileSync(harness.runtime.reads.attachmentFile(fork.id, image.id).path)).toEqual(PNG);
  });

  it("a fork never follows an attachment name from a record out of the attachments folder", async () => {
    harness = await startHarness();
    const image = await harness.runtime.upload("dot.png", "image/png", PNG);
    const created = await harness.runtime.createConversation({ text: "keep this", attachments: [image.id] });
    const sourceId = created.conversation.id;
    await harness.turnEnded(sourceId, created.turn.id);
    // A crafted import names a path that climbs to the conversation's own metadata.jsonl.
    const crafted = JSON.stringify([{ id: image.id, name: "../../../metadata.jsonl", mediaType: "image/png", bytes: PNG.length }]);
    harness.runtime.store.index.$client.prepare("UPDATE items SET attachments = ? WHERE conversation_id = ? AND kind = 'user_message'").run(crafted, sourceId);
    await harness.restart();

    const fork = await harness.runtime.fork(sourceId, {});
    const forkMetadata = fs.readFileSync(path.join(harness.home, "conversations", fork.id, "metadata.jsonl"), "utf8");
    const sourceMetadata = fs.readFileSync(path.join(harness.home, "conversations", sourceId, "metadata.jsonl"), "utf8");
    expect(forkMetadata).not.toBe(sourceMetadata);
    expect(JSON.parse(forkMetadata.split("\n")[0])).toMatchObject({ type: "conversation.created", forkedFrom: { conversationId: sourceId } });
    expect(fs.readdirSync(path.join(harness.home, "conversations", fork.id)).filter((name) => name.includes(".."))).toEqual([]);
  });
});
