/**
 * Where one server connection is, as one tagged union: each state carries exactly what is true in
 * it (the session only when ready, the retry time only when down), so no two fields can disagree.
 *
 *     starting ──ok──▶ ready ──exits by itself──▶ down ──next use, after retryAt──▶ starting
 *        │                                          │
 *        └──fails (first start)──▶ failed ◀──too many failures in a row
 *
 * `closed` is final: the pool was closed, whatever the state was.
 */
import type { ServerState } from './status.js';
import type { ServerSession } from './server-session.js';
import type { StdioProcessTransport } from './stdio-transport.js';

/** A start (or restart) in progress. */
export interface StartingState {
  readonly kind: 'starting';
  /** Settles when the attempt has moved the connection on (never rejects). */
  readonly attempt: Promise<void>;
  readonly restart: boolean;
  /**
   * The processes this attempt spawned (one, or two when the probe ended the first): they must die
   * with us even mid-handshake. Also the attempt's identity: an attempt adopts its session only
   * while the connection is still in this very state.
   */
  readonly spawned: Set<StdioProcessTransport>;
}

/** Connected, with its live session. */
export interface ReadyState {
  readonly kind: 'ready';
  readonly session: ServerSession;
}

/** Ended by itself; started again on next use, not before `retryAt` (the pool's clock). */
export interface DownState {
  readonly kind: 'down';
  readonly retryAt: number;
  readonly reason: string;
}

/** Could not start, or given up after too many failures: never tried again. */
export interface FailedState {
  readonly kind: 'failed';
  readonly reason: string;
}

/** The pool was closed. */
export interface ClosedState {
  readonly kind: 'closed';
}

export type ConnectionState = StartingState | ReadyState | DownState | FailedState | ClosedState;

/** The public name of a state (`/servers`, JSON output). */
export function publicState(state: ConnectionState): ServerState {
  return state.kind;
}

/** Why a server cannot be used now, for an error result the model reads. */
export function unavailableReason(serverName: string, state: ConnectionState): string {
  switch (state.kind) {
    case 'closed':
      return `server "${serverName}" has been shut down`;
    case 'failed':
      return `server "${serverName}" is not available: ${state.reason}`;
    case 'down':
      return `server "${serverName}" is down: ${state.reason}`;
    case 'starting':
      return `server "${serverName}" is still starting`;
    case 'ready':
      return `server "${serverName}" is ready`;
    default: {
      const unreachable: never = state;
      return unreachable;
    }
  }
}
