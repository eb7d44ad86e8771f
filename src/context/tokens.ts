/**
 * Token estimates, for the parts of a request the vendor has not counted yet. The vendor's own
 * figures (usage) are the truth; between two calls, what was added since is estimated.
 *
 * Hand-written rather than a tokenizer library: each vendor tokenizes differently (and Anthropic's
 * and Gemini's tokenizers are not published), and a budget only needs to be on the safe side. Four
 * characters a token is the usual rule for English and code; JSON and other languages run denser,
 * so the estimate counts three.
 */
import type { Message, ToolSpec } from '../core/types.js';

/** Characters per token assumed by the estimate (on the dense side, so the budget errs early). */
export const CHARACTERS_PER_TOKEN = 3;

/** What an image costs, whatever its size: about what Anthropic charges for a 1000×1000 picture. */
export const IMAGE_TOKENS = 1_600;

/** Per-message framing (role markers and the like) that every vendor adds. */
const MESSAGE_OVERHEAD_TOKENS = 4;

/** Tokens of a piece of text. */
export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / CHARACTERS_PER_TOKEN);
}

// Each message is measured once: a history of 10,000 messages must not be re-measured at every step.
const measured = new WeakMap<Message, number>();

/** Tokens of one message (cached by identity: messages are never edited in place). */
export function estimateMessageTokens(message: Message): number {
  const known = measured.get(message);
  if (known !== undefined) return known;
  let tokens = MESSAGE_OVERHEAD_TOKENS;
  for (const block of message.content) {
    switch (block.type) {
      case 'text':
        tokens += estimateTextTokens(block.text);
        break;
      case 'image':
        tokens += IMAGE_TOKENS;
        break;
      case 'tool-call':
        tokens +=
          estimateTextTokens(block.name) + estimateTextTokens(block.rawInput ?? JSON.stringify(block.input));
        break;
      case 'tool-result':
        for (const part of block.content) {
          tokens += part.type === 'text' ? estimateTextTokens(part.text) : IMAGE_TOKENS;
        }
        break;
      default: {
        const unexpected: never = block;
        throw new TypeError(`unknown block ${JSON.stringify(unexpected)}`);
      }
    }
  }
  measured.set(message, tokens);
  return tokens;
}

/** Tokens of several messages. */
export function estimateMessagesTokens(messages: readonly Message[]): number {
  let total = 0;
  for (const message of messages) total += estimateMessageTokens(message);
  return total;
}

const measuredTools = new WeakMap<ToolSpec, number>();

/** Tokens of the tool definitions as sent (name, description, schema). */
export function estimateToolsTokens(tools: readonly ToolSpec[]): number {
  let total = 0;
  for (const tool of tools) {
    let tokens = measuredTools.get(tool);
    if (tokens === undefined) {
      tokens =
        MESSAGE_OVERHEAD_TOKENS +
        estimateTextTokens(tool.name) +
        estimateTextTokens(tool.description) +
        estimateTextTokens(JSON.stringify(tool.inputSchema));
      measuredTools.set(tool, tokens);
    }
    total += tokens;
  }
  return total;
}
