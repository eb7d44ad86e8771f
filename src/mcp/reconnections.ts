/**
 * A server's connection made again — a crashed stdio server restarted, a remote one reconnected —
 * announced to whoever kept state on the old connection. The new one knows nothing of what the
 * old one was told (resource subscriptions, for one): listeners tell it again.
 */
import type { Client } from '@modelcontextprotocol/client';
import { messageOf } from '../core/errors.js';
import { FanOut } from '../util/fan-out.js';

/** One server connected again. */
export interface ServerReconnection {
  readonly server: string;
  /** The new connection's client, ready for requests. */
  readonly client: Client;
  /** Tells the user of a problem with this server, as the pool's own warnings do (`log`, `warn`). */
  readonly warn: (message: string) => void;
}

export type ServerReconnectionListener = (reconnection: ServerReconnection) => void;

/** Reconnections, to every listener; one that throws is reported through the server's `warn`. */
export class ServerReconnections extends FanOut<ServerReconnection> {
  override announce(reconnection: ServerReconnection): void {
    super.announce(reconnection, (error) => {
      // The connection is up whatever a listener does; its failure is the user's to hear of.
      reconnection.warn(`server "${reconnection.server}" connected again, then: ${messageOf(error)}`);
    });
  }
}
