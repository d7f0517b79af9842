export type SlashCommandName = "compact" | "objective" | "done" | "objective-cancel" | "fork";

export interface SlashCommand {
  name: SlashCommandName;
  usage: string;
  description: string;
  /** Completing inserts this text; commands that need an argument keep the cursor after it. */
  insert: string;
  takesArgument: boolean;
}

export const SLASH_COMMANDS: SlashCommand[] = [
  { name: "compact", usage: "/compact", description: "Summarize older history to free context", insert: "/compact", takesArgument: false },
  { name: "objective", usage: "/objective <goal>", description: "Open a durable goal the agent keeps working on", insert: "/objective ", takesArgument: true },
  { name: "done", usage: "/done", description: "Mark the open objective as completed", insert: "/done", takesArgument: false },
  { name: "objective-cancel", usage: "/objective cancel", description: "Cancel the open objective", insert: "/objective cancel", takesArgument: false },
  { name: "fork", usage: "/fork", description: "Copy this conversation into a new one", insert: "/fork", takesArgument: false },
];

/** Commands whose usage starts with what was typed, while the text is a single line starting with "/". */
export function matchingCommands(text: string): SlashCommand[] {
  if (!text.startsWith("/") || text.includes("\n")) return [];
  const typed = text.toLowerCase();
  return SLASH_COMMANDS.filter((command) => command.insert.toLowerCase().startsWith(typed.trimEnd()) || typed.startsWith(command.insert.toLowerCase()));
}

/** A complete command line, or null when the text is an ordinary message. */
export function parseCommand(text: string): { command: SlashCommandName; argument: string } | null {
  const trimmed = text.trim();
  if (trimmed === "/compact") return { command: "compact", argument: "" };
  if (trimmed === "/done") return { command: "done", argument: "" };
  if (trimmed === "/fork") return { command: "fork", argument: "" };
  if (trimmed === "/objective cancel") return { command: "objective-cancel", argument: "" };
  if (trimmed === "/objective" || trimmed.startsWith("/objective ")) return { command: "objective", argument: trimmed.slice("/objective".length).trim() };
  return null;
}
