/**
 * A test hook: `MCPHOST_LOCAL_TEST_FORCE_TOOL_CALL=1` makes the model begin its answer to a user
 * message with the chat wrapper's function-call prefix, through a token bias. node-llama-cpp's
 * grammar then writes a well-formed call to one of the offered tools. It exists because the tiny
 * random-weight model the tests run never calls a tool by itself; nothing else sets it.
 */
import type * as NodeLlamaCpp from 'node-llama-cpp';
import type { LlamaChat, LlamaModel, TokenBias } from 'node-llama-cpp';

/** The variable that turns the hook on (tests only). */
export const FORCE_TOOL_CALL_VARIABLE = 'MCPHOST_LOCAL_TEST_FORCE_TOOL_CALL';

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
  const tokens = binding.LlamaText(prefix).tokenize(model.tokenizer);
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
