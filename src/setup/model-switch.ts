/**
 * Changing a running session's model (the chat's `/model`, the editor's model picker): the provider for the new model, with the URL and key of the flags and config
 * kept only for the provider the run started with; and the models a picker may offer.
 */
import type { LoadedConfig } from '../../config/index.js';
import { parseModelString } from '../../providers/index.js';
import type { Provider } from '../core/types.js';
import { definedProperties } from '../util/defined-properties.js';
import { createModel } from './model-choice.js';
import type { CreateRunnerOptions } from './runner-options.js';

/** How long the picker waits for Ollama's list of installed models before offering without it. */
const OLLAMA_LIST_TIMEOUT_MS = 2_000;

/** What the run was started with. */
export interface ModelStart {
  /** The model the run started with (`provider:model`). */
  readonly modelString: string;
  readonly options: CreateRunnerOptions;
  readonly config: LoadedConfig;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** The provider of `next`. A model string that is not one is a ConfigError naming `source`. */
export function providerForSwitch(next: string, start: ModelStart, source: string): Promise<Provider> {
  const sameProvider =
    parseModelString(next, source).provider === parseModelString(start.modelString, source).provider;
  const { options, config } = start;
  return createModel(
    next,
    {
      ...definedProperties({
        onEvent: options.onEvent,
        homeDir: options.homeDir,
        projectDir: options.projectDir,
        modelFiles: options.modelFiles,
        context: options.context,
      }),
      ...(sameProvider
        ? definedProperties({ providerUrl: options.providerUrl, providerApiKey: options.providerApiKey })
        : {}),
    },
    sameProvider ? config : definedProperties({ context: config.context }),
    start.env,
    source,
  );
}

/**
 * The models a picker offers: the run's, the config's and its agents' models, and, when the run
 * is on Ollama, the models that Ollama server has installed (its list, if it answers soon).
 */
export async function knownModels(start: ModelStart, current: string): Promise<string[]> {
  const named = [
    current,
    start.modelString,
    start.config.model,
    ...(start.config.agents ?? []).map((agent) => agent.model),
  ].filter((model): model is string => model !== undefined && model !== 'inherit');
  const installed = parseModelString(current).provider === 'ollama' ? await ollamaInstalled(start) : [];
  // Ollama lists `name:latest` for what is asked for as `name`: one entry, the shorter.
  const listed = installed.map((name) => `ollama:${name.replace(/:latest$/, '')}`);
  return [...new Set([...named, ...listed])];
}

async function ollamaInstalled(start: ModelStart): Promise<string[]> {
  try {
    const { ollamaModels } = await import('../../providers/ollama-models.js');
    const models = ollamaModels({
      env: start.env,
      ...definedProperties({
        baseUrl: start.options.providerUrl ?? start.config.providerUrl,
        apiKey: start.options.providerApiKey ?? start.config.providerApiKey,
      }),
    });
    const listed = await models.list(AbortSignal.timeout(OLLAMA_LIST_TIMEOUT_MS));
    return listed.map((model) => model.name);
  } catch {
    // A picker without Ollama's list still offers the models named above.
    return [];
  }
}
