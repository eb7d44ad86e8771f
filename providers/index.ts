/**
 * Model strings (`provider:model`) and the provider registry. Vendor SDKs are imported only when
 * their provider is created, so `mcphost --help` stays fast.
 */
import { ConfigError } from '../src/core/errors.js';
import type { Provider } from '../src/core/types.js';
import type { ProviderOptions } from './options.js';

export type { ModelFileOptions, ProviderOptions } from './options.js';

/** `source` names where the model string came from (`--model`, a config file), for errors. */
type ProviderFactory = (options: ProviderOptions, source: string) => Promise<Provider>;

const factories: Readonly<Record<string, ProviderFactory>> = {
  ollama: async (options) => new (await import('./ollama.js')).OllamaProvider(options),
  anthropic: async (options) => new (await import('./anthropic.js')).AnthropicProvider(options),
  google: async (options) => new (await import('./google.js')).GoogleProvider(options),
  openai: async (options) => new (await import('./openai.js')).OpenAIProvider(options),
  // llama.cpp in the process (node-llama-cpp), loaded only when a `local:` model is used.
  local: async (options, source) =>
    (await import('./local/provider.js')).createLocalProvider(options, source),
};

/** Alternative names users type for a provider. */
const aliases: Readonly<Record<string, string>> = { gemini: 'google' };

/** The provider names `-m` accepts. */
export const KNOWN_PROVIDERS: readonly string[] = Object.keys(factories);

/** A model string split into its parts. */
export interface ModelReference {
  readonly provider: string;
  readonly model: string;
}

/**
 * Splits `provider:model` or `provider/model` at the first separator, so model names may contain
 * either (`ollama:qwen2.5:3b`, `openai:meta-llama/Llama-3-8B`). `source` names where the string came
 * from, for the error message.
 */
export function parseModelString(text: string, source = '--model'): ModelReference {
  const separator = text.search(/[:/]/);
  if (separator <= 0 || separator === text.length - 1) {
    throw new ConfigError(source, `"${text}" is not provider:model (for example ollama:mistral-small)`);
  }
  const name = text.slice(0, separator).toLowerCase();
  const provider = aliases[name] ?? name;
  if (!(provider in factories)) {
    throw new ConfigError(
      source,
      `unknown provider "${name}" in "${text}"; known providers: ${KNOWN_PROVIDERS.join(', ')}`,
    );
  }
  return { provider, model: text.slice(separator + 1) };
}

/** Creates the provider for a model string, importing its SDK on first use. */
export async function createProvider(
  modelString: string,
  options: Omit<ProviderOptions, 'model'>,
  source?: string,
): Promise<Provider> {
  const reference = parseModelString(modelString, source);
  const factory = factories[reference.provider];
  if (factory === undefined)
    throw new ConfigError(source ?? '--model', `unknown provider ${reference.provider}`);
  return factory({ ...options, model: reference.model }, source ?? '--model');
}
