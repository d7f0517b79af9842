import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { migratePostgresIndex } from "@/lib/store/postgres/index-migrations";
import { pollUntil } from "./poll";
import { startHarness, type Harness } from "./runtime-harness";

/** A second offline model with a small window (compaction) and a name that sorts before "offline" by bytes but after it by locale. */
export const CORPUS_CONFIG = {
  models: [
    { id: "offline", provider: "offline", contextWindow: 32000, maxOutputTokens: 4000 },
    { id: "Zed", provider: "offline", contextWindow: 6000, maxOutputTokens: 500 },
  ],
  defaultModel: "offline",
  objectiveSliceLimit: 2,
  artifactBytes: 512,
};

/** When the clock was held still: conversations made then share createdAt and updatedAt (ties the sorts break by id). */
const HELD_AT = new Date("2026-06-01T12:00:00.000Z");

const shell = (command: string) => `[[tool:shell ${JSON.stringify({ command })}]]`;
const ask = (question: string) => `[[tool:ask_user ${JSON.stringify({ question, choices: ["a", "b"] })}]]`;

export interface Corpus {
  harness: Harness;
  /** Every conversation made, archived ones and forks included. */
  conversationIds: string[];
  /** The conversation a fork and two restarts were made from. */
  forkedId: string;
}

/**
 * An index built by the real Runtime on real files (DESIGN §12): conversations on two models and
 * several folders, titles whose byte order is not their alphabetical order, equal titles and
 * equal timestamps, tool calls, artifacts, attachments, approvals approved, denied and pending,
 * questions answered and pending, waiting messages, a subagent, failed and interrupted turns,
 * objectives, a compaction, a fork, restarts, archived conversations and request keys. When it
 * resolves every turn has ended or is parked: nothing writes the index any more. With a
 * databaseUrl the Runtime is a node of a cluster on that database (its records there).
 */
export async function buildIndexCorpus(options: { databaseUrl?: string } = {}): Promise<Corpus> {
  let held = false;
  const harness = await startHarness(CORPUS_CONFIG, undefined, { now: () => (held ? HELD_AT : new Date()), databaseUrl: options.databaseUrl });
  const { runtime } = harness;
  const ids: string[] = [];
  const settled = async (conversationId: string) => {
    await pollUntil(() => runtime.listSessions(conversationId).every((session) => session.status === "idle") && runtime.listWaiting(conversationId).length === 0, {
      what: `conversation ${conversationId} to settle`,
    });
    return conversationId;
  };
  const create = async (text: string, options: { model?: string; cwd?: string; requestKey?: string; attachments?: string[] } = {}) => {
    const created = await runtime.createConversation({ text, ...options });
    ids.push(created.conversation.id);
    return created;
  };
  const converse = async (text: string, options: Parameters<typeof create>[1] = {}) => settled((await create(text, options)).conversation.id);
  const send = async (conversationId: string, text: string, options: { requestKey?: string; attachments?: string[] } = {}) => {
    await runtime.sendMessage(conversationId, { text, mode: "auto", ...options });
    return settled(conversationId);
  };
  const folder = (name: string) => {
    const made = path.join(harness.cwd, name);
    fs.mkdirSync(made, { recursive: true });
    return made;
  };
  fs.writeFileSync(path.join(harness.cwd, "big.txt"), "a line of the big file\n".repeat(100));

  const apple = await converse("apple pie [[stream:3]]", { requestKey: "create-apple" });
  await send(apple, 'list it [[tool:list_dir {"path":"."}]]', { requestKey: "send-apple" });
  await send(apple, 'read it [[tool:read_file {"path":"big.txt"}]]');
  const upload = await runtime.upload("note.txt", "text/plain", Buffer.from("an attached note\n"));
  await send(apple, "with a file", { attachments: [upload.id] });

  const approved = await create(`Banana ${shell("echo approved")}`, { cwd: folder("Beta") });
  const denied = await create(`Äpfel ${shell("echo denied")}`, { cwd: folder("beta") });
  const pending = await create(`zebra ${shell("echo pending")}`, { model: "Zed", cwd: folder("alpha") });
  for (const { conversation } of [approved, denied, pending]) await harness.waitForEvent(conversation.id, "approval.requested");
  await runtime.decideApproval(harness.events(approved.conversation.id, "approval.requested")[0]!.approval.id, "approve");
  await runtime.decideApproval(harness.events(denied.conversation.id, "approval.requested")[0]!.approval.id, "deny");
  await Promise.all([settled(approved.conversation.id), settled(denied.conversation.id)]);
  await runtime.sendMessage(pending.conversation.id, { text: "queued first", mode: "queue" });
  await runtime.sendMessage(pending.conversation.id, { text: "queued second", mode: "queue", requestKey: "queue-zebra" });

  const answered = await create(`Émile asks ${ask("Pick one")}`);
  const unanswered = await create(`éclair asks ${ask("Pick another")}`, { cwd: folder("alpha") });
  for (const { conversation } of [answered, unanswered]) await harness.waitForEvent(conversation.id, "question.asked");
  await runtime.answerQuestion(harness.events(answered.conversation.id, "question.asked")[0]!.question.id, "b");
  await settled(answered.conversation.id);

  held = true;
  const heldIds = [await converse("Same title"), await converse("Same title"), await converse("same title [[stream:2]]", { model: "Zed" })];
  held = false;

  const forked = await converse("🍎 fork source [[stream:2]]");
  await send(forked, "the second message");
  await send(forked, "the third message");
  const messages = runtime.listItems(forked, { limit: 500 }).items.filter((item) => item.kind === "user_message");
  ids.push((await runtime.fork(forked, {})).id);
  ids.push((await runtime.rewind(forked, messages[1]!.id)).conversation.id);
  ids.push((await runtime.rewind(forked, messages[2]!.id)).conversation.id);

  const archived = [await converse("archived one"), await converse("Archived two", { model: "Zed", cwd: folder("alpha") })];
  for (const conversationId of archived) await runtime.updateConversation(conversationId, { archived: true });
  await runtime.updateConversation(heldIds[2]!, { title: "Renamed by the owner" });

  const delegating = await converse(`delegate [[tool:spawn_agent ${JSON.stringify({ task: "child task [[stream:3]]" })}]]`);
  await converse("broken [[fail:400*1]]");
  const slow = await create("slow [[delay:50]] [[stream:200]]");
  await harness.waitForEvent(slow.conversation.id, "item.delta");
  await runtime.interrupt(slow.conversation.id);
  await settled(slow.conversation.id);

  const objective = await converse("objective host");
  await runtime.openObjective(objective, "reach the first goal");
  await pollUntil(() => runtime.getConversation(objective).objective?.status === "paused", { what: "the first objective to pause at its slice limit" });
  await settled(objective);
  await runtime.openObjective(objective, "reach the second goal");
  await pollUntil(() => runtime.getConversation(objective).objective?.status === "paused", { what: "the second objective to pause" });
  await settled(objective);

  // What PostgreSQL's text cannot hold as it is: NUL, a lone surrogate, and the escape's own U+FFFF.
  const awkward = await converse("a NUL \u0000 here, a lone \ud800, \uffff0 and \uffff\uffff [[stream:2]]", { requestKey: "key \u0000 \uffff" });
  await runtime.updateConversation(awkward, { title: "Title with \u0000 NUL" });

  const compacted = await converse("compact me [[stream:400]]", { model: "Zed" });
  for (let round = 0; round < 4; round += 1) await send(compacted, `more ${round} [[stream:400]]`);
  await runtime.compact(compacted);
  await settled(compacted);
  await send(delegating, "after the child");
  return { harness, conversationIds: ids, forkedId: forked };
}

/**
 * A migrated database whose own collation is a locale's (ICU, English) when this PostgreSQL has
 * ICU, so an ORDER BY or comparison that loses the columns' "C" collation shows up as a different
 * order. `database` is the file's server (usePostgresPerFile).
 */
export async function localeDatabase(database: { readonly postgres: { url: string }; readonly pool: pg.Pool }, name = "atrium_locale"): Promise<pg.Pool> {
  const icu = await database.pool.query("SELECT 1 FROM pg_collation WHERE collprovider = 'i' LIMIT 1");
  const create = icu.rows.length > 0
    ? `CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'`
    : `CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C.UTF-8'`;
  await database.pool.query(create);
  const pool = new pg.Pool({ connectionString: database.postgres.url.replace(/\/postgres$/, `/${name}`), max: 8 });
  pool.on("error", () => undefined);
  const client = await pool.connect();
  try {
    await migratePostgresIndex(client);
  } finally {
    client.release();
  }
  return pool;
}
