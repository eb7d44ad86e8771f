/**
 * A small fan-out: every listener hears every event, in the order they listened. A listener that
 * throws does not keep the event from the others; what is done with its error is the announcer's
 * choice (the default drops it, as a notification handler must not throw into the MCP SDK).
 */
export class FanOut<Event> {
  readonly #listeners = new Set<(event: Event) => void>();

  /** Listens until the returned function is called. */
  listen(listener: (event: Event) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** Tells every listener; `onListenerError` hears what a listener threw. */
  announce(event: Event, onListenerError?: (error: unknown) => void): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch (error) {
        onListenerError?.(error);
      }
    }
  }
}
