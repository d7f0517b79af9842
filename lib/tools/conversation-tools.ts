import { forget, memoryFolder, remember } from "../context/memories";
import { isId } from "../store/ids";
import { failed, ok, type ConversationToolContext } from "./conversation-tool";
import type { ToolResult } from "./tool";

/** ask_user: the owner's question, asked once through the owner; the turn parks until the answer. */
export async function askUser(input: { question: string; choices?: string[] }, { turn, item }: ConversationToolContext): Promise<ToolResult> {
  const { actor } = turn;
  let question = await actor.askQuestion(turn, item, { question: input.question, choices: input.choices ?? [] });
  if (question.status === "pending") {
    const questionId = question.id;
    await turn.park("waiting_user", (wake) => actor.onDecision(questionId, wake));
    if (turn.signal.aborted) return { status: "interrupted", output: "ask_user was interrupted before the owner answered" };
    question = actor.question(questionId)!;
  }
  return ok(question.answer ?? "");
}

/** compact_context: the turn compacts before its next model call. */
export async function compactContext(_input: Record<string, never>, { turn }: ConversationToolContext): Promise<ToolResult> {
  turn.compactRequested = true;
  return ok("The context will be compacted before your next step.");
}

/** read_artifact: a page of a large tool output stored once under artifacts/. */
export async function readArtifact(input: { id: string; page?: number }, { turn }: ConversationToolContext): Promise<ToolResult> {
  // The id names a file: only an id of Atrium's own shape, never a path.
  if (!isId(input.id)) return failed("Invalid input for read_artifact: id: not an artifact id");
  const page = input.page ?? 1;
  const found = await turn.actor.context.store.files.readArtifactPage(turn.actor.id, input.id, page);
  if (!found) return failed(`No artifact ${input.id} in this conversation.`);
  if (found.text === "" && found.artifact.bytes > 0) return failed(`Artifact ${input.id} has ${found.artifact.pages} pages; page ${page} does not exist.`);
  return ok(`[artifact ${input.id}, page ${page} of ${found.artifact.pages}, ${found.artifact.bytes} bytes in all]\n${found.text}`);
}

/** remember: a memory of this agent's, for later conversations. */
export async function rememberMemory(input: { title: string; text: string }, { turn }: ConversationToolContext): Promise<ToolResult> {
  if (input.title.trim() === "") return failed("Invalid input for remember: title: a non-empty string is required");
  if (input.text.trim() === "") return failed("Invalid input for remember: text: a non-empty string is required");
  remember(memoryFolder(turn.actor.context.store.paths.home, turn.session.agent), input.title, input.text);
  return ok(`Remembered "${input.title}".`);
}

/** forget: deletes a memory by its title. */
export async function forgetMemory(input: { title: string }, { turn }: ConversationToolContext): Promise<ToolResult> {
  if (input.title.trim() === "") return failed("Invalid input for forget: title: a non-empty string is required");
  const removed = forget(memoryFolder(turn.actor.context.store.paths.home, turn.session.agent), input.title);
  return removed ? ok(`Forgot "${input.title}".`) : failed(`No memory titled "${input.title}".`);
}
