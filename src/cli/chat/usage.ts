/** Token counts, per turn and for the whole chat session (`/usage`). */
import type { Usage } from '../../core/types.js';

export class UsageTotals {
  #inputTokens = 0;
  #outputTokens = 0;
  #modelCalls = 0;
  #reportedCalls = 0;
  #turns = 0;

  /** One model call finished; `usage` is what the provider reported, if anything. */
  addModelCall(usage: Usage | undefined): void {
    this.#modelCalls++;
    if (usage === undefined) return;
    this.#reportedCalls++;
    this.#inputTokens += usage.inputTokens;
    this.#outputTokens += usage.outputTokens;
  }

  addTurn(): void {
    this.#turns++;
  }

  get inputTokens(): number {
    return this.#inputTokens;
  }

  get outputTokens(): number {
    return this.#outputTokens;
  }

  get modelCalls(): number {
    return this.#modelCalls;
  }

  get turns(): number {
    return this.#turns;
  }

  /** True when at least one model call reported its token counts. */
  get reported(): boolean {
    return this.#reportedCalls > 0;
  }
}

/** `1,234` */
export function formatCount(count: number): string {
  return count.toLocaleString('en-US');
}
