/** What a run adds up over its steps: the tokens used and why it stopped. */
import type { StopReason } from './events.js';
import type { FinishReason, Usage } from './types.js';

export const ZERO_USAGE: Usage = { inputTokens: 0, outputTokens: 0 };

export function addUsage(total: Usage, more: Usage): Usage {
  return {
    inputTokens: total.inputTokens + more.inputTokens,
    outputTokens: total.outputTokens + more.outputTokens,
  };
}

export function stopReasonOf(reason: FinishReason): StopReason {
  switch (reason) {
    case 'length':
      return 'length';
    case 'content-filter':
      return 'content-filter';
    case 'stop':
    case 'tool-calls':
    case 'other':
      return 'end';
    default: {
      const unexpected: never = reason;
      return unexpected;
    }
  }
}
