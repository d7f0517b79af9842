/**
 * The fetch standard's Headers, kept in a Map: what the API's requests and answers carry
 * (lib/api/node-request.ts, lib/api/plain-answer.ts). Node's own Headers is undici's, and the
 * first use of any of undici's classes loads all of undici (and http2, zlib and web crypto with
 * it), about 2.5 MiB of an idle server on Node 24. Names are kept lower-case; reading them back
 * follows the standard: sorted by name, a name's values joined by ", ", each set-cookie on its own.
 */
export class PlainHeaders implements Headers {
  private readonly lists = new Map<string, string[]>();

  constructor(init: Record<string, string> | Iterable<readonly [string, string]> = {}) {
    const pairs = isIterable(init) ? init : Object.entries(init);
    for (const [name, value] of pairs) this.append(name, value);
  }

  /**
   * Node's `rawHeaders` (name, value, name, value, …), as the client sent them, of the names still
   * in `kept` (Node's parsed `headers`: one the server deleted there is left out here too).
   */
  static fromRaw(raw: readonly string[], kept: Readonly<Record<string, unknown>>): PlainHeaders {
    const headers = new PlainHeaders();
    for (let index = 0; index + 1 < raw.length; index += 2) {
      if (raw[index].toLowerCase() in kept) headers.append(raw[index], raw[index + 1]);
    }
    return headers;
  }

  append(name: string, value: string): void {
    const key = name.toLowerCase();
    const list = this.lists.get(key);
    if (list) list.push(normalized(value));
    else this.lists.set(key, [normalized(value)]);
  }

  delete(name: string): void {
    this.lists.delete(name.toLowerCase());
  }

  get(name: string): string | null {
    return this.lists.get(name.toLowerCase())?.join(", ") ?? null;
  }

  getSetCookie(): string[] {
    return [...(this.lists.get("set-cookie") ?? [])];
  }

  has(name: string): boolean {
    return this.lists.has(name.toLowerCase());
  }

  set(name: string, value: string): void {
    this.lists.set(name.toLowerCase(), [normalized(value)]);
  }

  forEach(callback: (value: string, name: string, parent: Headers) => void, thisArg?: unknown): void {
    for (const [name, value] of this.sorted()) callback.call(thisArg, value, name, this);
  }

  entries() {
    return this.sorted().values();
  }

  keys() {
    return this.sorted()
      .map(([name]) => name)
      .values();
  }

  values() {
    return this.sorted()
      .map(([, value]) => value)
      .values();
  }

  [Symbol.iterator]() {
    return this.entries();
  }

  private sorted(): [string, string][] {
    const names = [...this.lists.keys()].sort();
    return names.flatMap((name): [string, string][] => {
      const list = this.lists.get(name)!;
      return name === "set-cookie" ? list.map((value): [string, string] => [name, value]) : [[name, list.join(", ")]];
    });
  }
}

/** The standard's value normalization: leading and trailing HTTP whitespace removed (not all of what trim() removes). */
function normalized(value: string): string {
  return value.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, "");
}

function isIterable(init: Record<string, string> | Iterable<readonly [string, string]>): init is Iterable<readonly [string, string]> {
  return Symbol.iterator in init;
}
