/**
 * The subagent runs of one runner's conversation, as they ended: what `/agents` lists, and what a
 * saved conversation keeps of each child (its transcript and usage).
 */
import type { AgentRun } from './child-run.js';
import { FanOut } from '../util/fan-out.js';

export class AgentRunBook {
  readonly #runs: AgentRun[] = [];
  readonly #added = new FanOut<AgentRun>();

  add(run: AgentRun): void {
    this.#runs.push(run);
    this.#added.announce(run);
  }

  /** Every run so far, oldest first. */
  get runs(): readonly AgentRun[] {
    return [...this.#runs];
  }

  /** Hears each run as it is added, until the returned function is called. */
  listen(listener: (run: AgentRun) => void): () => void {
    return this.#added.listen(listener);
  }

  /** Starts over (a new conversation; a loaded one gives its own runs). */
  reset(runs: readonly AgentRun[] = []): void {
    this.#runs.length = 0;
    this.#runs.push(...runs);
  }
}
