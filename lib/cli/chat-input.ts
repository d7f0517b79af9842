import { isId } from "../store/ids";
import type { SendMode } from "./chat-api";

/** What one typed line asks for. */
export type ChatCommand =
  | { kind: "send"; text: string; mode: SendMode }
  | { kind: "interrupt" }
  | { kind: "decide"; approvalId: string; decision: "approve" | "deny" }
  | { kind: "answer"; questionId: string; text: string }
  | { kind: "help" }
  | { kind: "quit" }
  | { kind: "nothing" }
  | { kind: "invalid"; message: string };

export const CHAT_HELP = [
  "Type a message and press Enter: it starts a turn, or waits in the queue while one runs.",
  "  /steer <text>        hand the message to the running turn (read before its next model call)",
  "  /queue <text>        run it after the current turn",
  "  /jump <text>         interrupt the running turn and run this next",
  "  /interrupt           stop the running turn (Ctrl-C does the same while a turn runs)",
  "  /approve <id>        approve a tool call waiting for approval",
  "  /deny <id>           deny it",
  "  /answer <id> <text>  answer a question the agent asked",
  "  /quit                leave (Ctrl-D, or Ctrl-C when nothing runs); the conversation goes on",
  "  //text               send a message that starts with /",
].join("\n");

const SEND_MODES: Record<string, SendMode> = { steer: "steer", queue: "queue", jump: "jump" };

export function parseChatLine(line: string): ChatCommand {
  const trimmed = line.trim();
  if (trimmed === "") return { kind: "nothing" };
  if (trimmed.startsWith("//")) return { kind: "send", text: trimmed.slice(1), mode: "auto" };
  if (!trimmed.startsWith("/")) return { kind: "send", text: trimmed, mode: "auto" };

  const [, name = "", rest = ""] = /^\/(\S*)\s*([\s\S]*)$/.exec(trimmed) ?? [];
  const argument = rest.trim();
  if (Object.hasOwn(SEND_MODES, name)) {
    if (argument === "") return { kind: "invalid", message: `/${name} needs the message text, e.g. /${name} look at the tests first` };
    return { kind: "send", text: argument, mode: SEND_MODES[name] };
  }
  switch (name) {
    case "interrupt":
      return { kind: "interrupt" };
    case "approve":
    case "deny":
      if (!isId(argument)) return { kind: "invalid", message: `/${name} needs an approval id (the 26-character id printed with the request)` };
      return { kind: "decide", approvalId: argument, decision: name };
    case "answer": {
      const [, questionId = "", text = ""] = /^(\S*)\s*([\s\S]*)$/.exec(argument) ?? [];
      if (!isId(questionId) || text === "") return { kind: "invalid", message: "/answer needs a question id and the answer, e.g. /answer <id> yes" };
      return { kind: "answer", questionId, text };
    }
    case "help":
    case "?":
      return { kind: "help" };
    case "quit":
    case "exit":
      return { kind: "quit" };
    default:
      return { kind: "invalid", message: `unknown command /${name}; /help lists them (start a message with // to send a leading /)` };
  }
}
