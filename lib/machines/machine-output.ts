import { maximumKeptOutputCharacters } from "../tools/capped-output";

/** Deltas are gathered this long (or up to FLUSH_CHARACTERS) into one frame. */
const FLUSH_DELAY_MS = 20;
const FLUSH_CHARACTERS = 64 * 1024;
/** Past this much unsent data on the socket, live deltas are skipped: the result still carries the (capped) output. */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

/**
 * A call's output on its way to the gateway: deltas coalesced into few frames, live streaming
 * bounded like the shell's kept output, and nothing sent while the socket is backed up — a
 * huge or fast output costs the link a bounded amount, so other conversations' calls keep flowing.
 * While every delta has gone out whole, the result need not repeat them (`remainder`).
 */
export class OutputPump {
  private pending = "";
  private streamed = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Everything sent so far, while nothing was skipped or cut; null once something was. */
  private sent: string | null = "";

  constructor(
    private readonly send: (delta: string) => void,
    private readonly bufferedBytes: () => number,
  ) {}

  push(delta: string): void {
    if (this.streamed >= maximumKeptOutputCharacters) {
      this.sent = null;
      return;
    }
    this.pending += delta;
    if (this.pending.length >= FLUSH_CHARACTERS) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), FLUSH_DELAY_MS);
  }

  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending === "") return;
    const delta = this.pending.slice(0, maximumKeptOutputCharacters - this.streamed);
    if (delta.length < this.pending.length) this.sent = null;
    this.pending = "";
    if (this.bufferedBytes() > MAX_BUFFERED_BYTES) {
      this.sent = null;
      return;
    }
    this.streamed += delta.length;
    if (this.sent !== null) this.sent += delta;
    this.send(delta);
  }

  /**
   * What the result frame must carry of a call's final output: only what follows the streamed
   * text when the output begins with exactly that text (the gateway puts the two together), else all of it.
   */
  remainder(output: string): { output: string; streamed: boolean } {
    const sent = this.sent;
    if (!sent || !output.startsWith(sent)) return { output, streamed: false };
    return { output: output.slice(sent.length), streamed: true };
  }
}
