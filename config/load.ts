/**
 * Finding and reading the config file.
 *
 * `--config FILE` wins; otherwise the first of {@link CONFIG_FILE_NAMES} in the home directory.
 * We look for exactly those files ourselves rather than through a cosmiconfig explorer: creating
 * one makes cosmiconfig search the *current* directory for its own "meta config" (package.json,
 * package.yaml, .config/config.{json,yaml,js,ts,mjs,cjs}) and import the script ones — running
 * code from whatever folder mcphost is started in (a cloned repository, say). cosmiconfig still
 * parses our YAML (see `parse-text.ts`).
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ConfigError } from '../src/errors.js';
import type { ConfigEnvironment, ParsedConfig } from './parse.js';
import { parseConfig } from './parse.js';
import { parseConfigText, syntaxOfPath } from './parse-text.js';

/** The files looked for in the home directory, in this order; the first that exists is used. */
export const CONFIG_FILE_NAMES = ['.mcp.json', '.mcphost.json', '.mcphost.yml', '.mcphost.yaml'] as const;

/** Where to look for the config, and what to expand `${VAR}` from. */
export interface LoadConfigOptions {
  /** A file named by the user (`--config`): used instead of the search; it must exist. */
  readonly configPath?: string;
  /** The directory searched for {@link CONFIG_FILE_NAMES} (normally the user's home). */
  readonly homeDir: string;
  /** The environment `${VAR}` references are read from (normally `process.env`). */
  readonly env: ConfigEnvironment;
}

/** A loaded config. */
export interface LoadedConfig extends ParsedConfig {
  /** The file it came from (absolute); `undefined` when there was none (then there are no servers). */
  readonly path: string | undefined;
}

/** Error codes that mean "there is no file here": the search goes on to the next name. */
const NOT_THERE = new Set(['ENOENT', 'ENOTDIR', 'EISDIR']);

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}

/** Why a file could not be read, in one line. */
function unreadable(path: string, error: unknown): ConfigError {
  const code = errorCode(error);
  const detail =
    code === 'ENOENT' || code === 'ENOTDIR'
      ? 'no such file'
      : code === 'EISDIR'
        ? 'is a directory, not a config file'
        : code === 'EACCES' || code === 'EPERM'
          ? 'cannot read it: permission denied'
          : `cannot read it: ${error instanceof Error ? error.message : String(error)}`;
  return new ConfigError(path, detail, { cause: error });
}

/** Reads a file, or gives `undefined` when it does not exist (only when `optional`). */
async function readText(path: string, optional: boolean): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if (optional && NOT_THERE.has(errorCode(error) ?? '')) return undefined;
    throw unreadable(path, error);
  }
}

/** The first config file in `homeDir`, with its text; `undefined` when there is none. */
export async function findConfigFile(homeDir: string): Promise<{ path: string; text: string } | undefined> {
  for (const name of CONFIG_FILE_NAMES) {
    const path = join(resolve(homeDir), name);
    // One at a time, in order: the first that exists wins, and a later one is never read.
    const text = await readText(path, true);
    if (text !== undefined) return { path, text };
  }
  return undefined;
}

/**
 * Finds, reads and checks the config. No file (and no `configPath`) is not an error: the result has
 * `path: undefined` and no servers, and the caller says so once. Throws a one-line ConfigError
 * naming the file for a missing `configPath`, an unreadable file, a syntax error (with line and
 * column) or an invalid setting (with the key, server included).
 */
export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  let found: { path: string; text: string } | undefined;
  if (options.configPath === undefined) {
    found = await findConfigFile(options.homeDir);
  } else {
    const path = resolve(options.configPath);
    const text = await readText(path, false);
    found = text === undefined ? undefined : { path, text };
  }
  if (found === undefined) {
    return { path: undefined, ...parseConfig(undefined, 'no config file', options.env) };
  }
  const { path, text } = found;
  const parsed = parseConfigText(text, path, syntaxOfPath(path));
  const config = parseConfig(parsed.value, path, options.env);
  const warnings = parsed.empty ? [`${path}: the file is empty`, ...config.warnings] : config.warnings;
  return { ...config, path, warnings };
}
