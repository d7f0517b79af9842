/** Runs async sections one after another: each conversation's state changes go through one. */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();
  private pending = 0;

  run<T>(section: () => Promise<T> | T): Promise<T> {
    this.pending += 1;
    const result = this.tail.then(section);
    this.tail = result.catch(() => undefined).finally(() => (this.pending -= 1));
    return result;
  }

  /** Nothing is running or waiting to run. */
  get idle(): boolean {
    return this.pending === 0;
  }
}
