/**
 * A listener on the starts of a pool's servers and their sign-ins (telemetry: the `initialize`
 * and `sign_in` spans). The pool knows nothing of OpenTelemetry; src/telemetry implements this.
 * Each method runs the work it is given and returns what the work returns: the listener may run
 * it inside a context of its own, so that the requests it sends (and their `params._meta`
 * trace context) belong to the start.
 */
import type { ServerDefinition } from './definition.js';
import type { ServerSession } from './server-session.js';

/** What is known of a start before it begins. */
export interface ServerStartFacts {
  /** The configured name. */
  readonly server: string;
  readonly definition: ServerDefinition;
  /** A restart after a crash or a failed start (the first start: false). */
  readonly restart: boolean;
}

export interface ServerStartObserver {
  /** One attempt to open a session: spawn or connect, negotiate, list the tools. */
  opening(facts: ServerStartFacts, work: () => Promise<ServerSession>): Promise<ServerSession>;
  /** A sign-in (OAuth) of a remote server, at its start or asked for by a call (step-up). */
  signingIn(server: string, work: () => Promise<void>): Promise<void>;
}

/** `open`, followed by the observer when there is one. */
export function observedOpening(
  observer: ServerStartObserver | undefined,
  facts: ServerStartFacts,
  open: () => Promise<ServerSession>,
): Promise<ServerSession> {
  return observer === undefined ? open() : observer.opening(facts, open);
}
