/**
 * Which model a runner uses, and creating its provider: the defaults when nothing names one, and
 * the provider made with the caller's and the config's URL and key (also used by `/model`).
 */
import type { LoadedConfig } from '../../config/index.js';
import { createProvider } from '../../providers/index.js';
import { DEFAULT_LOCAL_MODEL } from '../../providers/local/model-names.js';
import type { Provider } from '../core/types.js';
import { hostNotices } from './host-event.js';
import type { CreateRunnerOptions } from './runner-options.js';
import { definedProperties } from '../util/defined-properties.js';

/**
 * The model used when neither the caller nor the config names one: the embedded model, run in the
 * process (downloaded once), so that a fresh machine answers with nothing else installed.
 */
export const DEFAULT_MODEL = `local:${DEFAULT_LOCAL_MODEL}`;

/**
 * The default when a model server is named (`--provider-url`, the config's `providerUrl`, or
 * `OLLAMA_HOST`) but no model: that server is an Ollama, as before the embedded default existed;
 * the embedded model has no URL to use.
 */
export const DEFAULT_OLLAMA_MODEL = 'ollama:mistral-small';

/** {@link DEFAULT_MODEL}, or {@link DEFAULT_OLLAMA_MODEL} when a model server is named. */
export function defaultModel(
  providerUrl: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): string {
  const named = providerUrl !== undefined || (env.OLLAMA_HOST !== undefined && env.OLLAMA_HOST.trim() !== '');
  return named ? DEFAULT_OLLAMA_MODEL : DEFAULT_MODEL;
}

/** Creates the provider for a model string with the caller's and the config's URL and key. */
export function createModel(
  modelString: string,
  options: Pick<
    CreateRunnerOptions,
    | 'providerUrl'
    | 'providerApiKey'
    | 'onEvent'
    | 'context'
    | 'modelFiles'
    | 'homeDir'
    | 'projectDir'
    | 'signal'
  >,
  config: Pick<LoadedConfig, 'providerUrl' | 'providerApiKey' | 'context'>,
  env: Readonly<Record<string, string | undefined>>,
  source = '--model',
): Promise<Provider> {
  const baseUrl = options.providerUrl ?? config.providerUrl;
  return createProvider(
    modelString,
    {
      env,
      ...definedProperties({
        baseUrl,
        apiKey: options.providerApiKey ?? config.providerApiKey,
        warn: hostNotices(options.onEvent).warning,
      }),
      modelFiles: {
        ...definedProperties({ homeDir: options.homeDir, cwd: options.projectDir, signal: options.signal }),
        ...options.modelFiles,
      },
      // The window the budget uses (src/context) is the one a provider that sends it (Ollama) sends.
      ...definedProperties({
        contextWindow: options.context?.contextWindow ?? config.context?.contextWindow,
      }),
    },
    source,
  );
}
