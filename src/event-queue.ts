/** A push-to-pull bridge: a producer pushes events, a `for await` loop pulls them. */
export class EventQueue<T> implements AsyncIterable<T> {
  readonly #items: T[] = [];
  #waiting: ((result: IteratorResult<T>) => void) | undefined;
  #failWaiting: ((error: Error) => void) | undefined;
  #ended = false;
  #error: Error | undefined;

  push(item: T): void {
    if (this.#ended) return;
    if (this.#waiting === undefined) {
      this.#items.push(item);
      return;
    }
    const resolve = this.#waiting;
    this.#clearWaiter();
    resolve({ value: item, done: false });
  }

  end(): void {
    this.#ended = true;
    const resolve = this.#waiting;
    this.#clearWaiter();
    resolve?.({ value: undefined, done: true });
  }

  fail(reason: unknown): void {
    const error = reason instanceof Error ? reason : new Error(String(reason));
    this.#error = error;
    this.#ended = true;
    const reject = this.#failWaiting;
    this.#clearWaiter();
    reject?.(error);
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        const item = this.#items.shift();
        if (item !== undefined) return Promise.resolve({ value: item, done: false });
        if (this.#error !== undefined) return Promise.reject(this.#error);
        if (this.#ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve, reject) => {
          this.#waiting = resolve;
          this.#failWaiting = reject;
        });
      },
    };
  }

  #clearWaiter(): void {
    this.#waiting = undefined;
    this.#failWaiting = undefined;
  }
}
