/**
 * Resource subscriptions: being told (`notifications/resources/updated`) when a resource the user
 * attached changes. Asked only of servers that declare `resources.subscribe`.
 *
 * The two protocol generations differ: a 2025-era server takes `resources/subscribe`; a
 * 2026-07-28 server sends updates on a `subscriptions/listen` stream whose filter names the URIs.
 * Either way the update reaches the client's `notifications/resources/updated` handler
 * (see client-features.ts), so the rest of mcphost does not care which.
 *
 * A restarted or reconnected server has forgotten them: each is made again on the new connection
 * as soon as the pool announces it (see reconnections.ts).
 */
import type { Client, McpSubscription } from '@modelcontextprotocol/client';
import { ServerError, messageOf } from '../core/errors.js';
import type { ServerReconnection } from './reconnections.js';
import type { ServerClients } from './resources.js';

/** What {@link ResourceSubscriptions.subscribe} did. */
export type SubscribeOutcome =
  /** Asked the server; updates will be announced. */
  | 'subscribed'
  /** Already subscribed on the server's current connection: nothing was asked. */
  | 'already-subscribed'
  /** The server does not declare `resources.subscribe`: nothing was asked. */
  | 'not-offered';

/** The first protocol revision whose updates come on a `subscriptions/listen` stream. */
const LISTEN_REVISION = '2026-07-28';

interface Subscription {
  readonly server: string;
  readonly uri: string;
  /** The connection it was made (or is being made) on: a restarted server has forgotten it. */
  readonly client: Client;
  /**
   * Settles once the server has answered: the listen stream (2026-07-28 servers), or undefined for
   * `resources/subscribe`. Rejects when it refused; the subscription is then forgotten.
   */
  readonly made: Promise<McpSubscription | undefined>;
}

/** The subscriptions of one runner, by server and URI. */
export class ResourceSubscriptions {
  readonly #pool: ServerClients;
  readonly #subscriptions = new Map<string, Subscription>();

  constructor(pool: ServerClients) {
    this.#pool = pool;
    pool.onReconnected?.((reconnection) => {
      this.#subscribeAgain(reconnection);
    });
  }

  /**
   * Subscribes to one resource's updates. Throws ServerError (naming the server and URI) when the
   * server is unknown or unusable, or refuses.
   */
  async subscribe(server: string, uri: string, signal?: AbortSignal): Promise<SubscribeOutcome> {
    const client = await this.#pool.client(server, signal);
    if (!offersSubscriptions(client)) return 'not-offered';
    const key = keyOf(server, uri);
    const current = this.#subscriptions.get(key);
    // Made on this connection, or being made (by another call, or again after a restart): once is
    // enough. One that the server refused is asked again.
    if (
      current?.client === client &&
      (await current.made.then(
        () => true,
        () => false,
      ))
    ) {
      return 'already-subscribed';
    }
    try {
      await this.#make(key, server, uri, client, signal).made;
      return 'subscribed';
    } catch (error) {
      throw new ServerError(
        server,
        `server "${server}" could not subscribe to resource "${uri}": ${messageOf(error)}`,
        [],
        { cause: error },
      );
    }
  }

  /** Ends one subscription. Resolves false when there was none (on the current connection). */
  async unsubscribe(server: string, uri: string, signal?: AbortSignal): Promise<boolean> {
    const key = keyOf(server, uri);
    const subscription = this.#subscriptions.get(key);
    if (subscription === undefined) return false;
    this.#subscriptions.delete(key);
    const client = await this.#pool.client(server, signal);
    if (client !== subscription.client) return false;
    let stream: McpSubscription | undefined;
    try {
      stream = await subscription.made;
    } catch {
      return false; // refused: there is nothing to end
    }
    try {
      if (stream !== undefined) await stream.close();
      else await client.unsubscribeResource({ uri }, signal === undefined ? {} : { signal });
      return true;
    } catch (error) {
      throw new ServerError(
        server,
        `server "${server}" could not unsubscribe from resource "${uri}": ${messageOf(error)}`,
        [],
        { cause: error },
      );
    }
  }

  /** The resources subscribed to (or being subscribed to), as `{ server, uri }`. */
  list(): ReadonlyArray<{ readonly server: string; readonly uri: string }> {
    return [...this.#subscriptions.values()].map(({ server, uri }) => ({ server, uri }));
  }

  /** Asks the server, and records the subscription at once so that nobody asks twice meanwhile. */
  #make(key: string, server: string, uri: string, client: Client, signal?: AbortSignal): Subscription {
    const subscription: Subscription = { server, uri, client, made: ask(client, uri, signal) };
    this.#subscriptions.set(key, subscription);
    subscription.made.catch(() => {
      if (this.#subscriptions.get(key) === subscription) this.#subscriptions.delete(key);
    });
    return subscription;
  }

  /**
   * A server connected again: every subscription made on its old connection is made on the new
   * one. Nothing throws from here; a refusal is the user's to hear of (`warn`), not the caller's.
   */
  #subscribeAgain({ server, client, warn }: ServerReconnection): void {
    for (const [key, { server: owner, uri, client: previous }] of this.#subscriptions) {
      if (owner !== server || previous === client) continue;
      if (!offersSubscriptions(client)) {
        this.#subscriptions.delete(key);
        warn(
          `server "${server}" no longer declares resources.subscribe since it connected again: updates of resource "${uri}" will not be heard`,
        );
        continue;
      }
      this.#make(key, server, uri, client).made.catch((error: unknown) => {
        warn(
          `server "${server}" could not subscribe again to resource "${uri}" after it connected again: ${messageOf(error)}`,
        );
      });
    }
  }
}

function offersSubscriptions(client: Client): boolean {
  return client.getServerCapabilities()?.resources?.subscribe === true;
}

/** `resources/subscribe` for a 2025-era server, a `subscriptions/listen` stream for a later one. */
async function ask(
  client: Client,
  uri: string,
  signal: AbortSignal | undefined,
): Promise<McpSubscription | undefined> {
  const version = client.getNegotiatedProtocolVersion();
  if (version === undefined || version < LISTEN_REVISION) {
    await client.subscribeResource({ uri }, signal === undefined ? {} : { signal });
    return undefined;
  }
  // The SDK ends a listen stream whenever its signal aborts, even long after it opened: the
  // caller's signal (a chat turn's, cancelled later with Esc) may only cancel the opening.
  const opening = new AbortController();
  const cancelOpening = (): void => {
    opening.abort(signal?.reason);
  };
  if (signal?.aborted === true) cancelOpening();
  signal?.addEventListener('abort', cancelOpening, { once: true });
  try {
    return await client.listen({ resourceSubscriptions: [uri] }, { signal: opening.signal });
  } finally {
    signal?.removeEventListener('abort', cancelOpening);
  }
}

function keyOf(server: string, uri: string): string {
  return JSON.stringify([server, uri]);
}
