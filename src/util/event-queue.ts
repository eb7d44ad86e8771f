/**
 * A push-to-pull bridge: a producer pushes events, a `for await` loop pulls them. Leaving the loop
 * early (`break`, `return`, a throw) calls `onReturn`, so the producer can stop its work.
 */
export class EventQueue<T> implements AsyncIterable<T> {
  readonly #items: T[] = [];
  readonly #waiters: Array<{ resolve: (result: IteratorResult<T>) => void; reject: (error: Error) => void }> =
    [];
  readonly #onReturn: (() => void) | undefined;
  #ended = false;
  #error: Error | undefined;

  constructor(onReturn?: () => void) {
    this.#onReturn = onReturn;
  }

  push(item: T): void {
    if (this.#ended) return;
    const waiter = this.#waiters.shift();
    if (waiter === undefined) this.#items.push(item);
    else waiter.resolve({ value: item, done: false });
  }

  end(): void {
    this.#ended = true;
    for (const waiter of this.#waiters.splice(0)) waiter.resolve({ value: undefined, done: true });
  }

  fail(reason: unknown): void {
    if (this.#ended) return;
    this.#error = reason instanceof Error ? reason : new Error(String(reason));
    this.#ended = true;
    for (const waiter of this.#waiters.splice(0)) waiter.reject(this.#error);
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        if (this.#items.length > 0) return Promise.resolve({ value: this.#items.shift() as T, done: false });
        if (this.#error !== undefined) return Promise.reject(this.#error);
        if (this.#ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
      },
      return: () => {
        if (!this.#ended) this.#onReturn?.();
        this.#items.length = 0;
        this.end();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
