/**
 * Waiting for a connection's session to be usable, kept out of server-connection.ts: a start in
 * progress is waited for, a crashed server is restarted (after its backoff), and a server that is
 * given up or closed says why.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { unavailableReason, type ConnectionState } from './connection-state.js';
import type { ServerSession } from './server-session.js';

/** What the wait needs of the connection. */
export interface RestartableConnection {
  readonly name: string;
  /** Its state now: it changes across every await. */
  readonly state: () => ConnectionState;
  readonly now: () => number;
  /** Begins a restart (the state becomes `starting`). */
  readonly restart: () => void;
}

/** The live session, or why there is none (a string). */
export async function usableSession(
  connection: RestartableConnection,
  signal: AbortSignal | undefined,
): Promise<ServerSession | string> {
  let waitedForStart = false;
  for (;;) {
    // A fresh snapshot each turn: the state changes across every await below.
    const state = connection.state();
    switch (state.kind) {
      case 'ready':
        return state.session;
      case 'starting': {
        if (waitedForStart) return unavailableReason(connection.name, state);
        await state.attempt;
        waitedForStart = true;
        const after = connection.state();
        // A restart that just failed is not tried again by the same call.
        if (after.kind === 'down') return unavailableReason(connection.name, after);
        continue;
      }
      case 'down': {
        const wait = state.retryAt - connection.now();
        if (wait > 0) {
          try {
            await sleep(wait, undefined, signal ? { signal } : {});
          } catch {
            return 'the call was cancelled';
          }
          // Someone else may have restarted it meanwhile: look again.
          if (connection.state() !== state) continue;
        }
        connection.restart();
        continue;
      }
      case 'failed':
      case 'closed':
        return unavailableReason(connection.name, state);
      default: {
        const unreachable: never = state;
        return unreachable;
      }
    }
  }
}
