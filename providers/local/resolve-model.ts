/**
 * What follows `local:` → the absolute path of a complete model file, downloading it on first use.
 * The one call the provider needs (it replaces the provider's path-only `resolveLocalModelPath`
 * at the merge); the CLI passes the cache folder, the environment, Ctrl-C and a progress drawer.
 */
import { ensureLocalModelFile, type EnsureLocalModelOptions } from './model-files.js';
import { parseLocalModelName } from './model-names.js';
import { definedProperties } from '../../src/util/defined-properties.js';

export interface ResolveLocalModelOptions extends EnsureLocalModelOptions {
  /** Where the name came from (`--model`, `~/.mcp.json: model`), for a bad name's error. */
  readonly source: string;
  /** Relative paths are taken from here. */
  readonly cwd: string;
}

/**
 * @throws ConfigError for a bad name or a missing file path (exit code 2), ProviderError when the
 * download fails (exit code 3), AbortedError when `signal` stops it.
 */
export async function resolveLocalModelFile(
  name: string,
  options: ResolveLocalModelOptions,
): Promise<string> {
  const reference = parseLocalModelName(name, {
    source: options.source,
    cwd: options.cwd,
    ...definedProperties({ homeDir: options.homeDir }),
  });
  return ensureLocalModelFile(reference, options);
}
