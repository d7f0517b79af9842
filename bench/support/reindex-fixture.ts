import fs from "node:fs";
import { dataPaths } from "../../lib/store/paths";
import { metadataRecordSchema, sessionRecordSchema } from "../../lib/store/records";

export interface FixtureSize {
  conversations: number;
  /** Items per conversation: alternating user and assistant messages, one turn per pair. */
  items: number;
}

export interface Fixture {
  records: number;
  bytes: number;
  files: number;
}

const WORDS = (
  "the a to of and in is it that for on with as this be are not can you we build server turn model file " +
  "index store append flush reindex stream client event delta queue steer jump interrupt approval tool shell " +
  "read write edit directory config agent session message history summary context token window compaction " +
  "please could would should maybe check run test fix error failed passed output input result line column " +
  "function class module import export return value string number array object promise async await"
).split(" ");

/** Deterministic, so every run indexes the same text. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

function base32(value: number, length: number): string {
  let text = "";
  for (let index = 0; index < length; index += 1) {
    text = CROCKFORD[value % 32] + text;
    value = Math.floor(value / 32);
  }
  return text;
}

/**
 * ULIDs (time, random, then a counter so none repeats). Not the store's generator: the ulid
 * package draws crypto randomness per character, which made id generation most of setup time.
 */
function fixtureIds(clock: () => number): () => string {
  const next = random(11);
  let counter = 0;
  return () => {
    let randomPart = "";
    for (let index = 0; index < 10; index += 1) randomPart += CROCKFORD[Math.floor(next() * 32)];
    return base32(clock(), 10) + randomPart + base32((counter += 1), 6);
  };
}

/** A pool of ~200-character messages to draw from: generating 500k fresh texts would dominate setup time. */
function textPool(size: number): string[] {
  const next = random(42);
  const pool: string[] = [];
  for (let index = 0; index < size; index += 1) {
    let text = "";
    while (text.length < 170 + Math.floor(next() * 60)) {
      const word = WORDS[Math.floor(next() * WORDS.length)];
      text += text === "" ? word[0].toUpperCase() + word.slice(1) : ` ${word}`;
      if (next() < 0.08) text += ".";
    }
    pool.push(`${text}.`);
  }
  return pool;
}

/**
 * Writes a data directory of finished conversations straight to disk, in the record shapes
 * lib/store writes (DESIGN §2): metadata.jsonl with conversation.created, session.created and
 * turn.started/ended per turn; the root session's file with item.created user/assistant messages.
 */
export function writeFixture(home: string, size: FixtureSize): Fixture {
  const paths = dataPaths(home);
  fs.mkdirSync(paths.conversations, { recursive: true });
  const started = Date.parse("2025-01-01T00:00:00.000Z");
  let clock = started;
  const newId = fixtureIds(() => clock);
  const at = () => new Date((clock += 1000)).toISOString();
  const pool = textPool(2048);
  const pick = random(7);
  const text = () => pool[Math.floor(pick() * pool.length)];
  const fixture: Fixture = { records: 0, bytes: 0, files: 0 };
  const write = (filePath: string, lines: string[]) => {
    const content = lines.join("");
    fs.writeFileSync(filePath, content);
    fixture.records += lines.length;
    fixture.bytes += Buffer.byteLength(content);
    fixture.files += 1;
  };

  for (let conversation = 0; conversation < size.conversations; conversation += 1) {
    const conversationId = newId();
    const sessionId = newId();
    const metadata: object[] = [];
    const session: object[] = [];
    const firstText = text();
    metadata.push({
      type: "conversation.created",
      conversationId,
      title: firstText.slice(0, 60),
      titleSource: "auto",
      agent: "default",
      model: "offline",
      effort: null,
      cwd: home,
      executor: "local",
      rootSessionId: sessionId,
      forkedFrom: null,
    });
    metadata.push({ type: "session.created", sessionId, agent: "default", model: "offline", parentSessionId: null, depth: 0 });
    for (let item = 0; item < size.items; item += 2) {
      const turnId = newId();
      const userId = newId();
      const assistantId = newId();
      const userText = item === 0 ? firstText : text();
      const assistantText = text();
      session.push({
        type: "item.created",
        item: { id: userId, sessionId, turnId, kind: "user_message", status: "completed", text: userText, origin: "owner", createdAt: at() },
      });
      metadata.push({ type: "turn.started", turnId, sessionId, model: "offline", effort: null, inputMessageIds: [userId] });
      session.push({
        type: "item.created",
        item: { id: assistantId, sessionId, turnId, kind: "assistant_message", status: "completed", text: assistantText, createdAt: at() },
      });
      metadata.push({
        type: "turn.ended",
        turnId,
        status: "completed",
        error: null,
        usage: { inputTokens: 40 + item * 60, outputTokens: 55 },
      });
    }
    const stamp = (bodies: object[], schema: typeof metadataRecordSchema | typeof sessionRecordSchema) =>
      bodies.map((body, index) => {
        const record = { v: 1, seq: index + 1, at: at(), ...body };
        // The first conversation is checked against the store's own schemas: a bench on malformed
        // records would measure the reader's error path instead of reindex.
        if (conversation === 0) schema.parse(record);
        return `${JSON.stringify(record)}\n`;
      });
    fs.mkdirSync(paths.conversation(conversationId));
    write(paths.metadata(conversationId), stamp(metadata, metadataRecordSchema));
    write(paths.session(conversationId, sessionId), stamp(session, sessionRecordSchema));
  }
  return fixture;
}
