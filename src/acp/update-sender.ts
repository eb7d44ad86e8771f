/**
 * Sends a session's `session/update` notifications in order, and says when all sent so far are
 * written (a prompt's answer must come after its last update). A failed send (the editor went away)
 * is logged to stderr once; the turn goes on.
 */
import type { AgentContext, SessionUpdate } from '@agentclientprotocol/sdk';

export class UpdateSender {
  readonly #client: AgentContext;
  readonly #sessionId: string;
  readonly #log: (line: string) => void;
  #last: Promise<void> = Promise.resolve();
  #failed = false;

  constructor(client: AgentContext, sessionId: string, log: (line: string) => void) {
    this.#client = client;
    this.#sessionId = sessionId;
    this.#log = log;
  }

  send(update: SessionUpdate): void {
    this.#last = this.#last.then(() =>
      this.#client
        .notify('session/update', { sessionId: this.#sessionId, update })
        .catch((error: unknown) => {
          if (this.#failed) return;
          this.#failed = true;
          this.#log(`could not send an update to the editor: ${String(error)}`);
        }),
    );
  }

  /** Resolves once every update sent so far is written. */
  flushed(): Promise<void> {
    return this.#last;
  }
}
