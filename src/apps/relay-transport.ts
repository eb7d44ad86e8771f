/**
 * The bridge's side of a page relay: the host page forwards what its app's frame posts (over HTTP)
 * and posts to the frame what this sends (over the page's event stream). The AppBridge of ext-apps
 * runs here, in the host's process, where the guard and the servers are; the browser only relays.
 */
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';

export class RelayTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #deliver: (message: JSONRPCMessage) => void;
  #closed = false;

  /** `deliver` hands a message to the page for the frame (it must not throw). */
  constructor(deliver: (message: JSONRPCMessage) => void) {
    this.#deliver = deliver;
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('the app frame is gone'));
    this.#deliver(message);
    return Promise.resolve();
  }

  /** A message the frame posted (already checked to come from this app's frame). */
  receive(message: JSONRPCMessage): void {
    if (!this.#closed) this.onmessage?.(message);
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    this.onclose?.();
    return Promise.resolve();
  }
}
