import { parseArgs } from "node:util";
import { ChatApi, ChatApiError, ChatConnectionError } from "./chat-api";
import { findChatServer } from "./chat-server";
import { ChatSession } from "./chat-session";
import { conversationIdArgument, onePositional, UsageError, type CliContext } from "./cli-context";

/**
 * `atrium chat <id> [--url URL]`: attaches this terminal to a live conversation over the
 * HTTP API of the running server — the same turns, events and inbox the browser uses.
 */
export async function runChat(args: string[], context: CliContext): Promise<number> {
  const { positionals, values } = parseArgs({ args, options: { url: { type: "string" } }, allowPositionals: true, strict: true });
  const conversationId = conversationIdArgument(onePositional(positionals, "id"));
  const resolveServer = () => findChatServer(context, values.url);
  const { url } = resolveServer();
  const api = new ChatApi(resolveServer, conversationId);

  let conversation;
  try {
    conversation = await api.conversation();
  } catch (error) {
    if (error instanceof ChatConnectionError) throw new Error(`${error.message}; is the server running? (atrium serve)`, { cause: error });
    if (error instanceof ChatApiError && error.status === 404) throw new UsageError(`there is no conversation ${conversationId} on ${url}`);
    if (error instanceof ChatApiError && error.status === 401) {
      throw new Error(`${url} refused the access token; set ATRIUM_TOKEN to the server's token (atrium token)`, { cause: error });
    }
    throw error;
  }

  const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY);
  const color = Boolean(process.stdout.isTTY) && !context.env.NO_COLOR;
  const session = await ChatSession.attach({ api, conversation, input: process.stdin, output: process.stdout, interactive, color });
  return session.run();
}
