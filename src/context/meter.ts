/**
 * How much of the window the next request will take: the vendor's count of the last request
 * (its usage), plus an estimate of what was added since. Before the first figure, all estimate.
 */
import type { Message, ToolSpec, Usage } from '../core/types.js';
import {
  estimateMessageTokens,
  estimateMessagesTokens,
  estimateTextTokens,
  estimateToolsTokens,
} from './tokens.js';

/** What one request holds, for {@link ContextMeter.measure}. */
export interface RequestParts {
  readonly system?: string;
  readonly messages: readonly Message[];
  readonly tools: readonly ToolSpec[];
}

/** The last request the vendor counted: its history's length and last message, and its count. */
interface Anchor {
  readonly length: number;
  readonly last: Message | undefined;
  readonly inputTokens: number;
}

/** Tokens in use, kept up to date from the vendor's figures. */
export class ContextMeter {
  #anchor: Anchor | undefined;
  #lastMeasure = 0;

  /** Records the vendor's count of a request (`usage.inputTokens` of the call that sent `messages`). */
  observe(messages: readonly Message[], usage: Usage): void {
    if (usage.inputTokens <= 0) return; // some servers send zeros: an estimate is better than that
    this.#anchor = { length: messages.length, last: messages.at(-1), inputTokens: usage.inputTokens };
  }

  /** Forgets the vendor's figure (the history was replaced, or the model changed). */
  forget(): void {
    this.#anchor = undefined;
  }

  /**
   * Tokens a request with these parts would take. Constant work per call once a figure is known
   * (only the messages added since are estimated, each measured once), so it does not grow with
   * the conversation.
   */
  measure(parts: RequestParts): number {
    const anchor = this.#anchor;
    const { messages } = parts;
    if (
      anchor !== undefined &&
      messages.length >= anchor.length &&
      (anchor.length === 0 || messages[anchor.length - 1] === anchor.last)
    ) {
      let tokens = anchor.inputTokens;
      for (const message of messages.slice(anchor.length)) tokens += estimateMessageTokens(message);
      this.#lastMeasure = tokens;
      return tokens;
    }
    this.#anchor = undefined;
    this.#lastMeasure =
      estimateTextTokens(parts.system ?? '') +
      estimateMessagesTokens(messages) +
      estimateToolsTokens(parts.tools);
    return this.#lastMeasure;
  }

  /** The last figure {@link measure} gave (0 before any). */
  get lastMeasure(): number {
    return this.#lastMeasure;
  }
}
