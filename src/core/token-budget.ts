/**
 * The model tokens a session may spend (`budgets.maxTokens`): one counter shared by the session's
 * runs, the runs of the agents it calls (at any depth) and the summarizing calls of compaction.
 * Checked before each model call and charged after it, so a call already under way finishes and
 * the next one is refused: the budget can be passed by at most the calls running at that moment.
 */
import { TokenBudgetError } from './errors.js';
import type { Usage } from './types.js';

export class TokenBudget {
  /** Most tokens, input and output together. */
  readonly limit: number;
  #used = 0;

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) {
      throw new TypeError(`budgets.maxTokens must be a positive integer, got ${String(limit)}`);
    }
    this.limit = limit;
  }

  /** Tokens used so far. */
  get used(): number {
    return this.#used;
  }

  /** Throws {@link TokenBudgetError} once the budget is spent. */
  check(): void {
    if (this.#used >= this.limit) throw new TokenBudgetError(this.limit, this.#used);
  }

  /** Counts a finished call's tokens (a call without usage counts nothing: nothing is known). */
  charge(usage: Usage | undefined): void {
    if (usage === undefined) return;
    this.#used += usage.inputTokens + usage.outputTokens;
  }
}
