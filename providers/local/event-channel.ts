/**
 * node-llama-cpp reports a generation through callbacks and one promise; the Provider contract
 * is an async iterable. This is the small queue between them: pushed events wait until read, the
 * reader waits until pushed, and `end`/`fail` finish the stream after what was already pushed.
 */
export class EventChannel<Event> {
  readonly #buffer: Event[] = [];
  #waiting: (() => void) | undefined;
  #finished: { readonly error?: unknown } | undefined;

  push(event: Event): void {
    this.#buffer.push(event);
    this.#wake();
  }

  /**
   * Pushes `event`, or folds it into the last event still waiting to be read when `merge` can
   * (consecutive text pieces): a reader slower than the model then takes one event for many tokens
   * instead of paying the trip through the iterator for each, and no text waits longer than before.
   */
  pushMerging(event: Event, merge: (waiting: Event, next: Event) => Event | undefined): void {
    const last = this.#buffer.at(-1);
    const merged = last === undefined ? undefined : merge(last, event);
    if (merged === undefined) {
      this.push(event);
      return;
    }
    this.#buffer[this.#buffer.length - 1] = merged;
  }

  end(): void {
    this.#finished ??= {};
    this.#wake();
  }

  fail(error: unknown): void {
    this.#finished ??= { error };
    this.#wake();
  }

  #wake(): void {
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Event, void, undefined> {
    for (;;) {
      const next = this.#buffer.shift();
      if (next !== undefined) {
        yield next;
        continue;
      }
      if (this.#finished !== undefined) {
        if ('error' in this.#finished) throw this.#finished.error;
        return;
      }
      await new Promise<void>((resolve) => {
        this.#waiting = resolve;
      });
    }
  }
}
