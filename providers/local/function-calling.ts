/**
 * Whether the embedded model calls tools natively, read from the chat wrapper node-llama-cpp
 * resolved from the GGUF's chat template (`toolCalling: auto`, issue 41).
 *
 * Every node-llama-cpp chat wrapper can be handed `functions`, but a wrapper without a syntax of
 * its model's own falls back to node-llama-cpp's generic one (`||call: name(params)`), which no
 * model was trained on: the General, ChatML, Gemma, Llama 2, Llama 3 (the original), Alpaca,
 * Falcon and Empty wrappers, and a Jinja template from which no function-call syntax could be
 * extracted. Such a model is better served by prompted tool calling, whose answers the JSON-schema
 * grammar holds to a call or a reply. Wrappers with a syntax of their own (Qwen, Llama 3.1,
 * Mistral, Functionary, DeepSeek, Harmony, Seed, Gemma 4, a Jinja template with tool calls) are
 * native. node-llama-cpp has no public flag for this, so it is read from the wrapper's settings.
 */
import type * as NodeLlamaCpp from 'node-llama-cpp';
import type { ChatWrapper } from 'node-llama-cpp';

/** What the chat wrapper says of tool calling. */
export interface WrapperToolCalling {
  /** True when the wrapper writes calls in a syntax of its model's own. */
  readonly native: boolean;
  /** The wrapper's name (`ChatML`, `Qwen`, `JinjaTemplate`…), for the line that says so. */
  readonly wrapper: string;
}

/** The generic call prefix of node-llama-cpp's base wrapper, which no model was trained on. */
const GENERIC_CALL_PREFIX = '||call:';

/** Reads {@link WrapperToolCalling} from a resolved chat wrapper. */
export function wrapperToolCalling(
  wrapper: ChatWrapper,
  binding: Pick<typeof NodeLlamaCpp, 'ChatWrapper' | 'JinjaTemplateChatWrapper' | 'LlamaText'>,
): WrapperToolCalling {
  const name = wrapper.wrapperName;
  if (wrapper instanceof binding.JinjaTemplateChatWrapper) {
    return { native: wrapper.usingJinjaFunctionCallTemplate, wrapper: name };
  }
  const functions = wrapper.settings.functions;
  if (functions === binding.ChatWrapper.defaultSettings.functions) return { native: false, wrapper: name };
  // Llama 3's wrapper copies the generic syntax into settings of its own.
  const prefix = binding.LlamaText(functions.call.prefix).toString().trim();
  return { native: prefix !== GENERIC_CALL_PREFIX, wrapper: name };
}

/** The words of the line that says why tools are called by prompt. */
export function noNativeToolsReason(calling: WrapperToolCalling): string {
  return `node-llama-cpp's ${calling.wrapper} chat wrapper for its chat template has no function-call syntax`;
}
