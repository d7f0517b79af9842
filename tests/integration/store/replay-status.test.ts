import fs from "node:fs";
import Database from "better-sqlite3";
import { afterEach, beforeEach, expect, it } from "vitest";
import { reindex } from "@/lib/store/reindex";
import { catchUpIndex } from "@/lib/store/ingest";
import { Store } from "@/lib/store/store";
import { makeTempHome } from "../../support/temp-home";
import { appendExchange, createConversation, item } from "./conversation-fixtures";
import { appendEveryRecordType } from "./every-record-type";
import { dumpIndex } from "./index-dump";

let temp: ReturnType<typeof makeTempHome>;
beforeEach(() => { temp = makeTempHome(); });
afterEach(() => temp.cleanup());

it("open turns keep their statuses through reindex and catch-up", async () => {
  const store = new Store(temp.home, { log: () => {} });
  await appendEveryRecordType(store, "rich");
  const c = await createConversation(store, { title: "running", texts: ["one"] });
  const turnId = store.newId();
  const m = store.newId();
  await store.appendSession(c.conversationId, c.rootSessionId, { type: "item.created", item: item(store, { id: m, sessionId: c.rootSessionId, turnId, kind: "user_message", status: "completed", text: "open turn" }) });
  await store.appendMetadata(c.conversationId, { type: "turn.started", turnId, sessionId: c.rootSessionId, model: "offline", effort: null, inputMessageIds: [m] });
  const d = await createConversation(store, { title: "parked", texts: ["two"] });
  const t2 = store.newId(); const m2 = store.newId(); const call = store.newId();
  await store.appendMetadata(d.conversationId, { type: "turn.started", turnId: t2, sessionId: d.rootSessionId, model: "offline", effort: null, inputMessageIds: [m2] });
  await store.appendSession(d.conversationId, d.rootSessionId, { type: "item.created", item: item(store, { id: call, sessionId: d.rootSessionId, turnId: t2, kind: "tool_call", status: "waiting", toolName: "shell", toolCallId: "x", input: {} }) });
  await store.appendMetadata(d.conversationId, { type: "approval.requested", approvalId: store.newId(), sessionId: d.rootSessionId, turnId: t2, itemId: call, toolName: "shell", input: {} });
  await appendExchange(store, c, "later");
  const live = dumpIndex(store.index.$client);
  expect((live.conversations as Array<{ status: string }>).map((r) => r.status).sort()).toEqual(["idle", "running", "waiting"]);
  await store.close();
  for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(`${store.paths.database}${suffix}`, { force: true });
  reindex(temp.home, { log: () => {} });
  const client = new Database(store.paths.database);
  const rebuilt = dumpIndex(client);
  client.close();
  for (const table of Object.keys(live)) expect({ table, rows: rebuilt[table] }).toEqual({ table, rows: live[table] });
  // catch-up re-ingest of everything over an existing index
  const again = new Store(temp.home, { log: () => {} });
  again.index.$client.prepare("UPDATE conversations SET metadata_bytes = 0").run();
  expect(catchUpIndex(again)).toHaveLength(3);
  const caught = dumpIndex(again.index.$client);
  await again.close();
  for (const table of Object.keys(live)) expect({ table, rows: caught[table] }).toEqual({ table, rows: live[table] });
});
