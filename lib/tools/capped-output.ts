/** The engine moves big results into artifacts; this only bounds what a tool holds in memory. */
export const maximumKeptOutputCharacters = 8 * 1024 * 1024;

/**
 * Collects streamed output, keeping its beginning and its end when it grows
 * past the limit: a command's first lines say what it did, its last lines
 * usually say why it failed.
 */
export class CappedOutput {
  private readonly halfLimit: number;
  private head = "";
  private tail = "";
  private omittedCharacters = 0;

  constructor(limit = maximumKeptOutputCharacters) {
    this.halfLimit = Math.max(1, Math.floor(limit / 2));
  }

  append(delta: string): void {
    const roomInHead = this.halfLimit - this.head.length;
    if (roomInHead > 0) {
      this.head += delta.slice(0, roomInHead);
      delta = delta.slice(roomInHead);
    }
    this.tail += delta;
    // Trimming only once the tail doubles keeps the copying linear in the output's size.
    if (this.tail.length > 2 * this.halfLimit) this.trimTail();
  }

  toString(): string {
    this.trimTail();
    if (this.omittedCharacters === 0) return this.head + this.tail;
    return `${this.head}\n[… ${this.omittedCharacters} characters of output omitted …]\n${this.tail}`;
  }

  private trimTail(): void {
    const excess = this.tail.length - this.halfLimit;
    if (excess <= 0) return;
    this.omittedCharacters += excess;
    this.tail = this.tail.slice(excess);
  }
}
