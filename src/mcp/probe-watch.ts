/**
 * Ends the `server/discover` probe early when a stdio server is plainly up but ignores it.
 *
 * The spec (2026-07-28, backward compatibility on stdio) says a client that probes must count
 * "any other error, or no response within a reasonable timeout" as a legacy server. A reasonable
 * timeout must cover a slow start (a server behind `npx`), so silence alone costs up to the whole
 * probe wait (10 s) with a legacy server that drops unknown requests. So beside the probe we send
 * a `ping` (with the probe's `_meta`), which every revision lets a client send before `initialize`
 * and requires a server to answer: a server that answers the ping is running, and if its answer to the probe has not come a
 * moment later, it never will. The probe then ends at once with a "method not found" error, which
 * the SDK reads as "legacy" and follows with `initialize` on the same process.
 */
import type { JSONRPCMessage, JSONRPCRequest, RequestId } from '@modelcontextprotocol/client';

/** Our ping's id: a string no SDK generates, so its answer is told apart and kept from the SDK. */
const PING_ID = 'mcphost-probe-ping';
/**
 * After the ping's answer, how long the probe's may still take: a server may answer out of order
 * (handlers that run concurrently), but not by this much on a pipe.
 */
const ANSWER_ORDER_GRACE_MS = 300;
const METHOD_NOT_FOUND = -32_601;

/** What the watch needs from its transport. */
export interface ProbeWatchHost {
  /** Writes a message to the server, outside the SDK. */
  readonly write: (message: JSONRPCRequest) => void;
  /** Hands a message to the SDK as if the server had sent it. */
  readonly deliver: (message: JSONRPCMessage) => void;
  readonly onDebug: (message: string) => void;
}

/** Watches one transport's probe. */
export class ProbeWatch {
  readonly #host: ProbeWatchHost;
  #probeId: RequestId | undefined;
  #probeAnswered = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(host: ProbeWatchHost) {
    this.#host = host;
  }

  /** Sees each message we send; after the (first) probe, sends the ping. */
  sent(message: JSONRPCMessage): void {
    if (this.#probeId !== undefined || !('method' in message) || message.method !== 'server/discover') return;
    if (!('id' in message)) return;
    this.#probeId = message.id;
    // The probe's `_meta` (protocol version, client info) goes along: a dual-era server takes a
    // bare request for a legacy one and would serve the whole session as legacy.
    const meta = message.params?._meta;
    this.#host.write({
      jsonrpc: '2.0',
      id: PING_ID,
      method: 'ping',
      ...(meta === undefined ? {} : { params: { _meta: meta } }),
    });
  }

  /** Sees each message from the server; false when it is our ping's answer (not for the SDK). */
  received(message: JSONRPCMessage): boolean {
    if ('method' in message || !('id' in message)) return true;
    if (message.id === this.#probeId) {
      this.#probeAnswered = true;
      clearTimeout(this.#timer);
      return true;
    }
    if (message.id !== PING_ID) return true;
    if (!this.#probeAnswered && this.#probeId !== undefined && this.#timer === undefined) {
      const probeId = this.#probeId;
      this.#timer = setTimeout(() => {
        if (this.#probeAnswered) return;
        this.#probeAnswered = true;
        this.#host.onDebug('the server answered ping but not server/discover: a legacy server');
        this.#host.deliver({
          jsonrpc: '2.0',
          id: probeId,
          error: {
            code: METHOD_NOT_FOUND,
            message: 'server/discover went unanswered while ping was answered',
          },
        });
      }, ANSWER_ORDER_GRACE_MS);
      this.#timer.unref();
    }
    return false;
  }

  /** Stops the timer (the transport closed). */
  stop(): void {
    clearTimeout(this.#timer);
  }
}
