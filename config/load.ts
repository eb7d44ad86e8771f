/**
 * Finding and reading the config files.
 *
 * `--config FILE` wins; otherwise the first of {@link CONFIG_FILE_NAMES} in the home directory,
 * combined with a *project* config — the first of the same names in the folder mcphost runs in —
 * once the user trusts that file (see project.ts). The Go mcphost's hooks files are read in every
 * case (see hooks-file.ts).
 *
 * We look for exactly those files ourselves rather than through a cosmiconfig explorer: creating
 * one makes cosmiconfig search the *current* directory for its own "meta config" (package.json,
 * package.yaml, .config/config.{json,yaml,js,ts,mjs,cjs}) and import the script ones — running
 * code from whatever folder mcphost is started in (a cloned repository, say). cosmiconfig still
 * parses our YAML (see `parse-text.ts`).
 */
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { ConfigError, messageOf } from '../src/core/errors.js';
import { loadHooksFiles } from './hooks-file.js';
import type { ConfigEnvironment, ParsedConfig } from './parse.js';
import { definedProperties } from '../src/util/defined-properties.js';
import { parseConfig } from './parse.js';
import { parseConfigText, syntaxOfPath } from './parse-text.js';
import { describeProjectConfig, mergeProjectConfig, type ProjectConfigCandidate } from './project.js';
import { mergeHooks } from './safety-settings.js';
import { defaultTrustStorePath, fileTrustStore, hashConfigText, type TrustStore } from './trust-store.js';
import { fromVsCodeForm, isVsCodeForm, usedInputs } from './vscode-form.js';
import { inputValues, VSCODE_PROJECT_FILE, vsCodeUserFile, type AskConfigInput } from './vscode-files.js';

/** The files looked for in the home directory, in this order; the first that exists is used. */
export const CONFIG_FILE_NAMES = ['.mcp.json', '.mcphost.json', '.mcphost.yml', '.mcphost.yaml'] as const;

/** Where to look for the config, and what to expand `${VAR}` from. */
export interface LoadConfigOptions {
  /** A file named by the user (`--config`): used instead of the search; it must exist. */
  readonly configPath?: string | undefined;
  /** The directory searched for {@link CONFIG_FILE_NAMES} (normally the user's home). */
  readonly homeDir: string;
  /** The environment `${VAR}` references are read from (normally `process.env`). */
  readonly env: ConfigEnvironment;
  /**
   * The folder mcphost runs in. A config file there is a project config, used only once trusted.
   * Absent: no project config is looked for. Ignored with `configPath`.
   */
  readonly projectDir?: string;
  /** Where trusted project files are remembered. Default: a file in the user's state folder. */
  readonly trustStore?: TrustStore;
  /**
   * Asked about a project config that is not trusted yet (the chat shows what it would start and
   * asks). Resolves true to use it, and the answer is remembered for this content. Absent: an
   * untrusted project config is not used, and a warning says how to trust it.
   */
  readonly trustProject?: (project: ProjectConfigCandidate) => Promise<boolean>;
  /**
   * Asks for an input of a file in VS Code's form (`${input:id}`) that `MCPHOST_INPUT_<ID>` does
   * not give (the chat asks, hiding a password). Absent: such an input without a variable or a
   * default is an error naming the variable.
   */
  readonly askInput?: AskConfigInput;
  /**
   * Leave `${input:id}` as written instead of filling it in, for commands that only show or edit
   * the config (`mcp list`): nothing is asked, and no input needs a value.
   */
  readonly leaveInputs?: boolean;
}

/** A loaded config. */
export interface LoadedConfig extends ParsedConfig {
  /**
   * The file it came from (absolute): `--config`, else the home config, else the trusted project
   * config; `undefined` when there was none (then there are no servers).
   */
  readonly path: string | undefined;
  /** The trusted project config combined into it, if any. */
  readonly projectPath?: string;
  /** The folder a relative `systemPrompt` file is found from (that of the file that set it). */
  readonly systemPromptDirectory?: string;
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
          : `cannot read it: ${messageOf(error)}`;
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

/**
 * The first config file in `homeDir` (then each of `alsoPaths`, VS Code's files, relative to
 * `homeDir` or absolute), with its text; `undefined` when there is none.
 */
export async function findConfigFile(
  homeDir: string,
  alsoPaths: readonly string[] = [],
): Promise<{ path: string; text: string } | undefined> {
  for (const name of [...CONFIG_FILE_NAMES, ...alsoPaths]) {
    const path = resolve(homeDir, name);
    // One at a time, in order: the first that exists wins, and a later one is never read.
    const text = await readText(path, true);
    if (text !== undefined) return { path, text };
  }
  return undefined;
}

/** The config files searched in the home folder: ours, then the user's VS Code `mcp.json`. */
function findHomeConfigFile(homeDir: string, env: ConfigEnvironment) {
  return findConfigFile(homeDir, [vsCodeUserFile(homeDir, env)]);
}

/** What a file in VS Code's form needs besides its text: its inputs' values and folders. */
interface FileContext {
  readonly env: ConfigEnvironment;
  readonly homeDir: string;
  /** `${workspaceFolder}`. */
  readonly projectDir: string;
  /** The inputs' values; absent, `${input:id}` stays as written (a file not trusted yet). */
  readonly inputs?: ReadonlyMap<string, string>;
}

/** Reads and checks one config file's text (in our form or VS Code's). */
function parseFile(path: string, text: string, context: FileContext): ParsedConfig {
  const parsed = parseConfigText(text, path, syntaxOfPath(path));
  let config: ParsedConfig;
  if (isVsCodeForm(parsed.value)) {
    // Checked even when not filled in: a bad `inputs` is reported before anything is asked.
    usedInputs(parsed.value, path);
    const raw = fromVsCodeForm(parsed.value, {
      inputs: context.inputs ?? new Map(),
      workspaceFolder: context.projectDir,
      userHome: context.homeDir,
    });
    config = parseConfig(raw, path, context.env, { serversKey: 'servers' });
  } else {
    config = parseConfig(parsed.value, path, context.env);
  }
  return parsed.empty ? { ...config, warnings: [`${path}: the file is empty`, ...config.warnings] } : config;
}

/** Reads and checks a file, asking for its inputs first when it is in VS Code's form. */
async function parseFileWithInputs(
  path: string,
  text: string,
  options: LoadConfigOptions,
): Promise<ParsedConfig> {
  const context: FileContext = {
    env: options.env,
    homeDir: options.homeDir,
    projectDir: resolve(options.projectDir ?? process.cwd()),
  };
  const parsed = parseConfigText(text, path, syntaxOfPath(path));
  if (!isVsCodeForm(parsed.value) || options.leaveInputs === true) return parseFile(path, text, context);
  // Checked with the inputs left as written first: a broken file asks nothing.
  parseFile(path, text, context);
  const inputs = await inputValues(parsed.value, path, options.env, options.askInput);
  return parseFile(path, text, { ...context, inputs });
}

/** `~/x` and `x` (relative to `base`) to absolute paths. */
function resolveUserPath(value: string, base: string, homeDir: string): string {
  if (value === '~') return resolve(homeDir);
  if (value.startsWith('~/')) return resolve(homeDir, value.slice(2));
  return resolve(base, value);
}

/** The servers' own `roots` lists resolved against the file's folder (and `~`). */
function withServerRootsResolved(config: ParsedConfig, folder: string, homeDir: string): ParsedConfig {
  const servers = Object.entries(config.servers).map(([name, definition]) => {
    const { roots } = definition;
    if (typeof roots === 'boolean' || roots === undefined) return [name, definition] as const;
    return [
      name,
      { ...definition, roots: roots.map((root) => resolveUserPath(root, folder, homeDir)) },
    ] as const;
  });
  // fromEntries: a server named "__proto__" stays a server.
  return { ...config, servers: Object.fromEntries(servers) };
}

/** A parsed file as a LoadedConfig: its audit log path and roots resolved, its folder noted. */
function fromFile(parsed: ParsedConfig, path: string, homeDir: string): LoadedConfig {
  const folder = dirname(path);
  const config = withServerRootsResolved(parsed, folder, homeDir);
  return {
    ...config,
    path,
    ...(config.auditLog === undefined ? {} : { auditLog: resolveUserPath(config.auditLog, folder, homeDir) }),
    ...(config.roots === undefined
      ? {}
      : { roots: config.roots.map((root) => resolveUserPath(root, folder, homeDir)) }),
    ...(config.systemPrompt === undefined ? {} : { systemPromptDirectory: folder }),
  };
}

function withWarning(config: LoadedConfig, warning: string): LoadedConfig {
  return { ...config, warnings: [...config.warnings, warning] };
}

/**
 * Finds, reads and checks the config. No file (and no `configPath`) is not an error: the result has
 * `path: undefined` and no servers, and the caller says so once. Throws a one-line ConfigError
 * naming the file for a missing `configPath`, an unreadable file, a syntax error (with line and
 * column) or an invalid setting (with the key, server included). An untrusted project config never
 * throws: it is left out, with a warning.
 */
export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  const hooksFromFiles = await loadHooksFiles(options.homeDir, options.env);
  let config: LoadedConfig;
  if (options.configPath !== undefined) {
    const path = resolve(options.configPath);
    const text = (await readText(path, false)) ?? '';
    config = fromFile(await parseFileWithInputs(path, text, options), path, options.homeDir);
  } else {
    const found = await findHomeConfigFile(options.homeDir, options.env);
    config =
      found === undefined
        ? { path: undefined, ...parseConfig(undefined, 'no config file', options.env) }
        : fromFile(await parseFileWithInputs(found.path, found.text, options), found.path, options.homeDir);
    config = await withProjectConfig(config, options);
  }
  const hooks = mergeHooks(hooksFromFiles, config.hooks);
  return hooks === undefined ? config : { ...config, hooks };
}

/**
 * The home config's (or `configPath`'s) `sessionPersistence`, read before the rest of the config:
 * the session file is chosen before the servers start. A project config never sets it.
 */
export async function readSessionPersistence(
  options: Pick<LoadConfigOptions, 'configPath' | 'homeDir' | 'env'>,
): Promise<boolean | undefined> {
  return (await readEarlySettings(options)).sessionPersistence;
}

/**
 * The settings the CLI needs before a session is chosen or anything starts (`sessionPersistence`,
 * `telemetry`), from the home config or `--config` file alone, read once.
 */
export async function readEarlySettings(
  options: Pick<LoadConfigOptions, 'configPath' | 'homeDir' | 'env'>,
): Promise<Pick<ParsedConfig, 'sessionPersistence' | 'telemetry'>> {
  const found =
    options.configPath === undefined
      ? await findHomeConfigFile(options.homeDir, options.env)
      : {
          path: resolve(options.configPath),
          text: (await readText(resolve(options.configPath), false)) ?? '',
        };
  if (found === undefined) return {};
  // Inputs are not asked for here: they are never part of these settings.
  const context = { env: options.env, homeDir: options.homeDir, projectDir: options.homeDir };
  const parsed = parseFile(found.path, found.text, context);
  return definedProperties({ sessionPersistence: parsed.sessionPersistence, telemetry: parsed.telemetry });
}

/** The home config combined with the project config, when there is one and it is trusted. */
async function withProjectConfig(home: LoadedConfig, options: LoadConfigOptions): Promise<LoadedConfig> {
  const { projectDir, homeDir, env } = options;
  if (projectDir === undefined || resolve(projectDir) === resolve(homeDir)) return home;
  const found = await findConfigFile(projectDir, [VSCODE_PROJECT_FILE]);
  if (found === undefined) return home;
  const { path, text } = found;
  const sha256 = hashConfigText(text);
  const store = options.trustStore ?? fileTrustStore(defaultTrustStorePath(homeDir, env));
  let trusted = await store.isTrusted(path, sha256);
  let project: ParsedConfig;
  try {
    // The inputs are not asked for yet: a stranger's file gets no answer (the trust question shows
    // them as written).
    project = withServerRootsResolved(
      parseFile(path, text, { env, homeDir, projectDir: resolve(projectDir) }),
      dirname(path),
      homeDir,
    );
  } catch (error) {
    // A broken file the user trusted is their error to see; a stranger's broken file is just skipped.
    if (trusted || !(error instanceof ConfigError)) throw error;
    return withWarning(
      home,
      `${path}: not used: this project config is not trusted, and it is invalid (${error.detail})`,
    );
  }
  if (!trusted && options.trustProject !== undefined) {
    trusted = await options.trustProject(describeProjectConfig(path, sha256, project));
    if (!trusted) return withWarning(home, `${path}: not used (you did not trust it)`);
    try {
      await store.trust(path, sha256);
    } catch (error) {
      home = withWarning(
        home,
        `${path}: trusted for this session only: cannot remember it (${messageOf(error)})`,
      );
    }
  }
  if (!trusted) return withWarning(home, untrustedNotice(path, project));
  if (options.leaveInputs !== true && usesInputs(text, path)) {
    project = withServerRootsResolved(await parseFileWithInputs(path, text, options), dirname(path), homeDir);
  }
  const merged = mergeProjectConfig(home, project, path);
  return {
    ...merged,
    path: home.path ?? path,
    projectPath: path,
    ...(project.systemPrompt !== undefined
      ? { systemPromptDirectory: dirname(path) }
      : home.systemPromptDirectory === undefined
        ? {}
        : { systemPromptDirectory: home.systemPromptDirectory }),
  };
}

/** Whether a file is in VS Code's form with inputs its servers use. */
function usesInputs(text: string, path: string): boolean {
  const parsed = parseConfigText(text, path, syntaxOfPath(path));
  return isVsCodeForm(parsed.value) && usedInputs(parsed.value, path).length > 0;
}

function untrustedNotice(path: string, project: ParsedConfig): string {
  const names = Object.keys(project.servers);
  const starts = names.length === 0 ? '' : ` (it would start: ${names.join(', ')})`;
  return (
    `${path}: not used: this project config is not trusted${starts}. ` +
    `To trust it, run mcphost in ${dirname(path)} without -p and answer yes, or name it with --config`
  );
}
