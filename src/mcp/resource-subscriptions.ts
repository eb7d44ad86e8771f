/**
 * Resource subscriptions: being told (`notifications/resources/updated`) when a resource the user
 * attached changes. Asked only of servers that declare `resources.subscribe`.
 *
 * The two protocol generations differ: a 2025-era server takes `resources/subscribe`; a
 * 2026-07-28 server sends updates on a `subscriptions/listen` stream whose filter names the URIs.
 * Either way the update reaches the client's `notifications/resources/updated` handler
 * (see client-features.ts), so the rest of mcphost does not care which.
 */
import type { Client, McpSubscription } from '@modelcontextprotocol/client';
import { ServerError, messageOf } from '../errors.js';
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
  /** The connection it was made on: a restarted server has forgotten it. */
  readonly client: Client;
  /** The listen stream (2026-07-28 servers); absent for `resources/subscribe`. */
  readonly stream?: McpSubscription;
}

/** The subscriptions of one runner, by server and URI. */
export class ResourceSubscriptions {
  readonly #pool: ServerClients;
  readonly #subscriptions = new Map<string, Subscription>();

  constructor(pool: ServerClients) {
    this.#pool = pool;
  }

  /**
   * Subscribes to one resource's updates. Throws ServerError (naming the server and URI) when the
   * server is unknown or unusable, or refuses.
   */
  async subscribe(server: string, uri: string, signal?: AbortSignal): Promise<SubscribeOutcome> {
    const client = await this.#pool.client(server, signal);
    if (client.getServerCapabilities()?.resources?.subscribe !== true) return 'not-offered';
    const key = keyOf(server, uri);
    if (this.#subscriptions.get(key)?.client === client) return 'already-subscribed';
    const options = signal === undefined ? {} : { signal };
    try {
      const version = client.getNegotiatedProtocolVersion();
      if (version !== undefined && version >= LISTEN_REVISION) {
        const stream = await client.listen({ resourceSubscriptions: [uri] }, options);
        this.#subscriptions.set(key, { server, uri, client, stream });
      } else {
        await client.subscribeResource({ uri }, options);
        this.#subscriptions.set(key, { server, uri, client });
      }
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
    try {
      if (subscription.stream !== undefined) await subscription.stream.close();
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

  /** The resources subscribed to, as `{ server, uri }`. */
  list(): ReadonlyArray<{ readonly server: string; readonly uri: string }> {
    return [...this.#subscriptions.values()].map(({ server, uri }) => ({ server, uri }));
  }
}

function keyOf(server: string, uri: string): string {
  return JSON.stringify([server, uri]);
}
