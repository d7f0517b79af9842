import readline from "node:readline";
import { stripVTControlCharacters } from "node:util";

type Paint = (text: string) => string;

export interface ChatStyle {
  dim: Paint;
  label: Paint;
  user: Paint;
  tool: Paint;
  attention: Paint;
  error: Paint;
}

const plain: Paint = (text) => text;

/** ANSI styling, or none at all when the output is not a terminal (so scripts and tests read plain text). */
export function chatStyle(color: boolean): ChatStyle {
  if (!color) return { dim: plain, label: plain, user: plain, tool: plain, attention: plain, error: plain };
  const ansi = (open: number, close: number): Paint => (text) => (text === "" ? text : `\u001b[${open}m${text}\u001b[${close}m`);
  return {
    dim: ansi(2, 22),
    label: ansi(1, 22),
    user: ansi(32, 39),
    tool: ansi(33, 39),
    attention: ansi(35, 39),
    error: ansi(31, 39),
  };
}

type Output = NodeJS.WritableStream & { columns?: number };

/**
 * The terminal's output side. With an interactive prompt attached, output goes above the
 * prompt: the prompt line (and an unfinished output line) is erased, the output written,
 * and the prompt redrawn with what the user had typed so far.
 */
export class ChatScreen {
  /** Output written after the last newline. */
  private partial = "";
  private prompt: readline.Interface | null = null;
  /** Counts the times a typed line was submitted below an unfinished output line, which cannot be continued. */
  private lineBreaks = 0;

  constructor(private readonly output: Output) {}

  get atLineStart(): boolean {
    return this.partial === "";
  }

  get breaks(): number {
    return this.lineBreaks;
  }

  attachPrompt(prompt: readline.Interface): void {
    this.prompt = prompt;
    prompt.prompt();
  }

  detachPrompt(): void {
    if (this.prompt) this.erasePrompt();
    this.prompt = null;
    if (this.partial !== "") this.output.write(this.partial);
  }

  /** After Enter, the typed line sits below any unfinished output line; output goes on from a fresh line. */
  promptSubmitted(): void {
    if (this.prompt === null || this.partial === "") return;
    this.partial = "";
    this.lineBreaks += 1;
  }

  write(text: string): void {
    if (text === "") return;
    if (!this.prompt) {
      this.output.write(text);
      this.partial = lastLine(this.partial + text);
      return;
    }
    this.erasePrompt();
    const shown = this.partial + text;
    this.partial = lastLine(shown);
    this.output.write(this.partial === "" ? shown : `${shown}\n`);
    this.prompt.prompt(true);
  }

  endLine(): void {
    if (this.partial !== "") this.write("\n");
  }

  line(text: string): void {
    this.endLine();
    this.write(`${text}\n`);
  }

  /** Moves to the start of the unfinished output line (or the prompt line) and clears to the end of the screen. */
  private erasePrompt(): void {
    const { rows } = this.prompt!.getCursorPos();
    const columns = this.output.columns ?? 80;
    const partialRows = this.partial === "" ? 0 : Math.max(1, Math.ceil(stripVTControlCharacters(this.partial).length / columns));
    readline.moveCursor(this.output, 0, -(rows + partialRows));
    readline.cursorTo(this.output, 0);
    readline.clearScreenDown(this.output);
  }
}

function lastLine(text: string): string {
  return text.slice(text.lastIndexOf("\n") + 1);
}
