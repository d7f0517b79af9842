import fs from "node:fs";
import { dataPaths } from "../../lib/store/paths";
import { metadataRecordSchema, sessionRecordSchema } from "../../lib/store/records";
import { ulid } from "ulid";

export interface LongConversation {
  conversationId: string;
  /** Item ids in order: user message, assistant reply, user message, … */
  itemIds: string[];
}

const SENTENCES = [
  "Could you check why the index flush stalls when the stream is busy?",
  "The append path writes one record per delta and the reader replays them in order.",
  "Here is a longer answer with a list:\n\n- the first point about the queue\n- the second about steering\n- the third about the approval flow",
  "Short one.",
  "A paragraph that goes on for a while so the row wraps over a few lines at the usual width of the conversation column, which is what real replies look like most of the time when the model explains something.",
  "```ts\nconst page = await fetchPage({ before: cursor, limit: 100 });\nrender(page.items);\n```",
];

/**
 * Writes one finished conversation of `items` user and assistant messages (one turn per pair)
 * straight into a data directory, in the record shapes lib/store writes (DESIGN §2), for the
 * server to index at start. `text(index)` may give an item its own text (a word to find).
 */
export function writeLongConversation(
  home: string,
  items: number,
  text: (index: number) => string | null = () => null,
  options: { startAt?: number; title?: string } = {},
): LongConversation {
  const paths = dataPaths(home);
  fs.mkdirSync(paths.conversations, { recursive: true });
  let clock = options.startAt ?? Date.parse("2025-03-01T09:00:00.000Z");
  const at = () => new Date((clock += 1500)).toISOString();
  const conversationId = ulid(clock);
  const sessionId = ulid(clock);
  const metadata: object[] = [
    {
      type: "conversation.created",
      conversationId,
      title: options.title ?? `A long conversation (${items} items)`,
      titleSource: "owner",
      agent: "default",
      model: "offline",
      effort: null,
      cwd: home,
      executor: "local",
      rootSessionId: sessionId,
      forkedFrom: null,
    },
    { type: "session.created", sessionId, agent: "default", model: "offline", parentSessionId: null, depth: 0 },
  ];
  const session: object[] = [];
  const itemIds: string[] = [];
  for (let index = 0; index < items; index += 2) {
    const turnId = ulid(clock);
    const userId = ulid(clock);
    const assistantId = ulid(clock);
    itemIds.push(userId, assistantId);
    const userText = text(index) ?? `Message ${index}:\n\n${SENTENCES[index % SENTENCES.length]}`;
    const assistantText = text(index + 1) ?? `Reply ${index + 1}:\n\n${SENTENCES[(index * 7 + 3) % SENTENCES.length]}`;
    session.push({ type: "item.created", item: { id: userId, sessionId, turnId, kind: "user_message", status: "completed", text: userText, origin: "owner", createdAt: at() } });
    metadata.push({ type: "turn.started", turnId, sessionId, model: "offline", effort: null, inputMessageIds: [userId] });
    session.push({ type: "item.created", item: { id: assistantId, sessionId, turnId, kind: "assistant_message", status: "completed", text: assistantText, createdAt: at() } });
    metadata.push({ type: "turn.ended", turnId, status: "completed", error: null, usage: { inputTokens: 40, outputTokens: 55 } });
  }
  const stamp = (bodies: object[], schema: typeof metadataRecordSchema | typeof sessionRecordSchema) =>
    bodies.map((body, index) => `${JSON.stringify(schema.parse({ v: 1, seq: index + 1, at: at(), ...body }))}\n`).join("");
  fs.mkdirSync(paths.conversation(conversationId), { recursive: true });
  fs.writeFileSync(paths.metadata(conversationId), stamp(metadata, metadataRecordSchema));
  fs.writeFileSync(paths.session(conversationId, sessionId), stamp(session, sessionRecordSchema));
  return { conversationId, itemIds };
}
