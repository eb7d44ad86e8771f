/**
 * How the model calls tools (`toolCalling`): natively through the vendor's tools, by prompt
 * (prompted-provider.ts), or not at all. `auto` asks the provider whether its model takes tools
 * (Ollama's `/api/show` capabilities, node-llama-cpp's chat wrapper) and falls back to the prompt
 * when it does not, or when the vendor refuses a request for carrying tools; the choice is kept
 * per provider object, so `/model` to another model decides again.
 */
import { ConfigError, ProviderError } from '../errors.js';
import type { Provider } from '../types.js';

/** `toolCalling` in the config, `--tool-calling`, `RunnerOptions.toolCalling`. */
export type ToolCallingSetting =
  /** Native where the model takes tools, else by prompt (the default). */
  | 'auto'
  /** Native only: a model without tool calling is an error that says what to do. */
  | 'native'
  /** By prompt always, even for a model with native tool calling. */
  | 'prompt'
  /** No tools: the model gets no definitions and no call is run, not even one written as text. */
  | 'none';

export const TOOL_CALLING_SETTINGS: readonly ToolCallingSetting[] = ['auto', 'native', 'prompt', 'none'];

/** Why tools are called by prompt. */
export type PromptedReason =
  /** `toolCalling: prompt`. */
  | 'configured'
  /** The provider says the model has no tool calling (Ollama's capabilities lack `tools`). */
  | 'model-lacks-tools'
  /** The vendor refused a request with tools (its words in `detail`). */
  | 'vendor-refused';

/** The way one provider's model calls tools. A tagged union: switch on `kind`. */
export type ToolCalling =
  | { readonly kind: 'native' }
  | {
      readonly kind: 'prompt';
      readonly reason: PromptedReason;
      readonly model: string;
      /** The vendor's words (`vendor-refused`), or why the model lacks tools where known (`model-lacks-tools`). */
      readonly detail?: string;
    }
  | { readonly kind: 'none' };

/** Native calling, as one object: the step state reports a mode only when it changes (by identity). */
const NATIVE: ToolCalling = { kind: 'native' };

/** The choice for each provider a Runner has used. */
export class ToolCallingChoice {
  readonly #setting: ToolCallingSetting;
  readonly #chosen = new WeakMap<Provider, ToolCalling>();

  constructor(setting: ToolCallingSetting = 'auto') {
    this.#setting = setting;
  }

  get setting(): ToolCallingSetting {
    return this.#setting;
  }

  /**
   * How `provider` calls tools. Throws {@link ConfigError} under `native` when the provider says its
   * model has no tool calling.
   */
  async decide(provider: Provider, withTools = true): Promise<ToolCalling> {
    const known = this.#chosen.get(provider);
    if (known !== undefined) return known;
    // A step with no tools to offer does not ask the model's capabilities (Ollama's /api/show): a
    // one-shot without servers sends its prompt at once. Not kept: a later step with tools asks.
    if (!withTools && (this.#setting === 'auto' || this.#setting === 'native')) return NATIVE;
    const chosen = await this.#choose(provider);
    this.#chosen.set(provider, chosen);
    return chosen;
  }

  /**
   * After `error` on a native request with tools: the prompted mode to try instead, when the vendor
   * refused the tools and `auto` allows it; undefined otherwise (the error stands). Under `native`,
   * a refusal becomes the error that says what to do.
   */
  afterRefusal(provider: Provider, error: unknown): ToolCalling | undefined {
    if (!(error instanceof ProviderError) || !error.toolsUnsupported) return undefined;
    if (this.#setting === 'native') throw noToolCalling(provider, error.message);
    if (this.#setting !== 'auto') return undefined;
    const chosen: ToolCalling = {
      kind: 'prompt',
      reason: 'vendor-refused',
      model: modelName(provider),
      detail: error.message,
    };
    this.#chosen.set(provider, chosen);
    return chosen;
  }

  async #choose(provider: Provider): Promise<ToolCalling> {
    switch (this.#setting) {
      case 'none':
        return { kind: 'none' };
      case 'prompt':
        return { kind: 'prompt', reason: 'configured', model: modelName(provider) };
      case 'native':
        if ((await provider.supportsTools?.()) === false) {
          throw noToolCalling(provider, provider.noNativeToolsReason?.());
        }
        return NATIVE;
      case 'auto': {
        if ((await provider.supportsTools?.()) !== false) return NATIVE;
        const detail = provider.noNativeToolsReason?.();
        return {
          kind: 'prompt',
          reason: 'model-lacks-tools',
          model: modelName(provider),
          ...(detail === undefined ? {} : { detail }),
        };
      }
      default: {
        const unexpected: never = this.#setting;
        throw new TypeError(`unknown toolCalling setting ${String(unexpected)}`);
      }
    }
  }
}

function modelName(provider: Provider): string {
  return `${provider.name}:${provider.model}`;
}

/** The one line said when `native` meets a model without tool calling. */
function noToolCalling(provider: Provider, vendorWords?: string): ConfigError {
  const why = vendorWords === undefined ? '' : ` (${vendorWords})`;
  return new ConfigError(
    'toolCalling native',
    `${modelName(provider)} has no tool calling in ${vendorName(provider.name)}${why}; ` +
      'use --tool-calling prompt, a model with tools such as qwen3 or llama3.1, or --tool-calling none',
  );
}

function vendorName(provider: string): string {
  const names: Record<string, string> = {
    ollama: 'Ollama',
    openai: 'this OpenAI-compatible server',
    local: 'its chat template',
  };
  return names[provider] ?? provider;
}
