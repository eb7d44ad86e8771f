/**
 * Test hooks: the tiny random-weight model the tests run never calls a tool or thinks by itself,
 * so a token bias makes the first tokens of its answer to a user message what a test needs; nothing
 * else sets these variables.
 * - `MCPHOST_LOCAL_TEST_FORCE_TOOL_CALL=1`: the chat wrapper's function-call prefix (tools offered
 *   only); node-llama-cpp's grammar then writes a well-formed call to one of the offered tools.
 * - `MCPHOST_LOCAL_TEST_FORCE_TEXT=…`: that text, special tokens (`<think>`) read as such: a
 *   thought before the answer.
 */
import type * as NodeLlamaCpp from 'node-llama-cpp';
import type { LlamaChat, LlamaModel, Token, TokenBias } from 'node-llama-cpp';

/** The variable that turns the tool-call hook on (tests only). */
export const FORCE_TOOL_CALL_VARIABLE = 'MCPHOST_LOCAL_TEST_FORCE_TOOL_CALL';
/** The variable that holds the text to force (tests only). */
export const FORCE_TEXT_VARIABLE = 'MCPHOST_LOCAL_TEST_FORCE_TEXT';

/**
 * A bias that picks the prefix's tokens one by one for the first samples of a generation, then
 * leaves the model alone; `undefined` when the wrapper has no function-call syntax.
 */
export function forcedToolCallBias(
  chat: LlamaChat,
  model: LlamaModel,
  binding: Pick<typeof NodeLlamaCpp, 'LlamaText' | 'TokenBias'>,
): (() => TokenBias) | undefined {
  const prefix = chat.chatWrapper.settings.functions.call.prefix;
  return forcedTokensBias(binding.LlamaText(prefix).tokenize(model.tokenizer), model, binding);
}

/**
 * A bias that forces `text` (special tokens included) as the first tokens of a generation, one per
 * sample. Only for text the model samples token by token: inside a tool call node-llama-cpp
 * inserts parts of the syntax itself, and a count of samples no longer says where the text is.
 */
export function forcedTextBias(
  text: string,
  model: LlamaModel,
  binding: Pick<typeof NodeLlamaCpp, 'TokenBias'>,
): (() => TokenBias) | undefined {
  return forcedTokensBias(model.tokenize(text, true), model, binding);
}

function forcedTokensBias(
  tokens: readonly Token[],
  model: LlamaModel,
  binding: Pick<typeof NodeLlamaCpp, 'TokenBias'>,
): (() => TokenBias) | undefined {
  if (tokens.length === 0) return undefined;
  let sampled = 0;
  return () => {
    const bias = new binding.TokenBias(model.tokenizer);
    const next = tokens[sampled];
    if (next !== undefined) bias.set(next, { logit: 1000 });
    sampled += 1;
    return bias;
  };
}
