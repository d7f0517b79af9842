import type { ConversationActor } from "./conversation-actor";
import { aiSdk } from "../lazy-packages";

const TITLE_INSTRUCTION =
  "Write a short title (at most six words) for the conversation below. Answer with the title only: no quotes, no punctuation at the end.";
const EXCERPT_CHARACTERS = 2000;
const TITLE_TIMEOUT_MS = 30_000;

/** The model's answer as a title: its first non-empty line without quotes or markdown marks, 60 characters at most. */
export function cleanTitle(answer: string): string | null {
  const line = answer.split(/\r?\n/).map((candidate) => candidate.trim()).find((candidate) => candidate !== "") ?? "";
  const stripped = line.replace(/^(title:\s*)/i, "").replace(/^["'“”‘’#*\s]+|["'“”‘’.*\s]+$/g, "").trim();
  if (stripped === "") return null;
  return Array.from(stripped).slice(0, 60).join("").trim();
}

/**
 * DESIGN §9: with `titleModel` configured, a short title is written after the first reply. The
 * first-line title stays until then, and for good when the turn does not complete, the call
 * fails, or the owner renamed the conversation meanwhile.
 */
export function titleAfterFirstReply(actor: ConversationActor, turnId: string, titleModel: string): void {
  const firstLineTitle = actor.conversation().title;
  // The subscription counts as a listener until the turn ends; the title call then counts as work.
  const stop = actor.context.bus.subscribe(actor.id, (delivered) => {
    const event = delivered.event;
    if (event.type !== "turn.ended" || event.turnId !== turnId) return;
    stop();
    if (event.turn.status !== "completed") return;
    actor.track(writeTitle(actor, titleModel, firstLineTitle)).catch((error: unknown) => {
      actor.context.log(`title for ${actor.id} not written: ${error instanceof Error ? error.message : String(error)}`);
    });
  });
}

async function writeTitle(actor: ConversationActor, titleModel: string, firstLineTitle: string): Promise<void> {
  const items = actor.root.items;
  const question = items.find((item) => item.kind === "user_message")?.text ?? "";
  const answer = items.find((item) => item.kind === "assistant_message")?.text ?? "";
  const result = await aiSdk().generateText({
    model: actor.context.models.languageModel(titleModel),
    messages: [
      {
        role: "user",
        content: `${TITLE_INSTRUCTION}\n\nUser: ${question.slice(0, EXCERPT_CHARACTERS)}\n\nAssistant: ${answer.slice(0, EXCERPT_CHARACTERS)}`,
      },
    ],
    maxOutputTokens: 40,
    maxRetries: 1,
    abortSignal: AbortSignal.timeout(TITLE_TIMEOUT_MS),
  });
  const title = cleanTitle(result.text);
  if (title === null) return;
  // Written only if the owner did not rename meanwhile: the command checks, in the owner's order.
  await actor.execute({ type: "write_title", title, firstLineTitle });
}
