/**
 * What servers say changed in what they offer: a list (`notifications/{resources,prompts}/
 * list_changed`) or one subscribed resource (`notifications/resources/updated`). The pool's
 * handlers report here; the cached listings, the chat and a program's callback listen.
 */

/** One change a server announced. A tagged union: switch on `type`. */
export type OfferingsChange =
  /** The server's list of resources (templates included) or of prompts changed. */
  | { readonly type: 'list-changed'; readonly server: string; readonly list: 'resources' | 'prompts' }
  /** A resource this client subscribed to changed; read it again for its new contents. */
  | { readonly type: 'resource-updated'; readonly server: string; readonly uri: string };

export type OfferingsChangeListener = (change: OfferingsChange) => void;

/** A small fan-out: every listener hears every change, in the order they subscribed. */
export class OfferingsChanges {
  readonly #listeners = new Set<OfferingsChangeListener>();

  /** Listens until the returned function is called. */
  listen(listener: OfferingsChangeListener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** Tells every listener. A listener that throws does not keep the change from the others. */
  announce(change: OfferingsChange): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(change);
      } catch {
        // A listener's failure is its own; the notification handler must not throw into the SDK.
      }
    }
  }
}
