/**
 * `mcphost script FILE [--args:name value …]`: a prompt in a file, with the settings to run it.
 *
 * The front matter takes some of the config file's keys (`model`, `systemPrompt`, `maxSteps`,
 * `maxTokens`, `temperature`, `topP`, `topK`, `stopSequences`, `providerUrl`, `initTimeout`,
 * `toolTimeout`, in camelCase or kebab-case) and `mcpServers`, which replaces the config's servers;
 * it is checked by the config's own parser, so its messages are the config's. Flags on the command line win over the front matter, which wins
 * over the config file.
 *
 * Variables: in the body, `${name}` and `${name:-default}` come from `--args:name`, and
 * `${env://NAME}` from the environment; in the front matter, `${name}` is looked up in the
 * `--args` first and then in the environment (so `mcpServers` entries read as in the config file).
 * `$${` is a literal `${`. A variable with no value and no default is an error naming it.
 */
import { readFile, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseConfig, parseConfigText } from '../../../config/index.js';
import { settingAliases, settingsShape } from '../../../config/schema.js';
import { expandVariables, type ExpansionResult, type VariableLookup } from '../../../config/variables.js';
import { ConfigError } from '../../core/errors.js';
import type { ServerDefinition } from '../../mcp/definition.js';
import type { GenerationSettings } from '../../core/types.js';
import type { CliOptions } from '../args.js';
import { nearest } from '../command-line/suggest.js';
import { splitScript, type ScriptParts } from './script-front-matter.js';
import { definedProperties } from '../../util/defined-properties.js';

/** A script file, read and checked. */
export interface ScriptFile {
  /** The file's absolute path. */
  readonly path: string;
  /** The body, variables filled in. */
  readonly prompt: string;
  readonly model?: string;
  /** Text, or the absolute path of a file holding it. */
  readonly systemPrompt?: string;
  readonly maxSteps?: number;
  readonly providerUrl?: string;
  readonly generation: GenerationSettings;
  /** The servers to use instead of the config's, when the front matter has `mcpServers`. */
  readonly servers?: Readonly<Record<string, ServerDefinition>>;
  /** Worth telling the user (unknown server keys, `--args` the script never uses). */
  readonly warnings: readonly string[];
}

/** The front matter's keys beyond the config's settings. */
const SERVER_KEYS = new Map([
  ['mcpServers', 'mcpServers'],
  ['mcp-servers', 'mcpServers'],
]);
/**
 * The config settings a front matter may set. Others (approval rules, hooks, keys…) belong to the
 * user's config file, not to a script that may come from someone else.
 */
const SCRIPT_SETTINGS: ReadonlySet<string> = new Set([
  'model',
  'systemPrompt',
  'maxSteps',
  'maxTokens',
  'temperature',
  'topP',
  'topK',
  'stopSequences',
  'providerUrl',
  'initTimeout',
  'toolTimeout',
]);
/** Settings whose string values may use variables (servers expand theirs in the config parser). */
const EXPANDED_SETTINGS = new Set(['model', 'systemPrompt', 'providerUrl']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every variable name the text mentions (for the "unused --args" warning). */
function mentionedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const match of text.matchAll(/(?<!\$)\$\{(?:env:\/\/)?([A-Za-z_][A-Za-z0-9_]*)/g)) {
    if (match[1] !== undefined) names.add(match[1]);
  }
  return names;
}

/**
 * `--args:fiel` for a script that uses `${file}`: a typo, said before "file has no value" hides it.
 * An unused name that is near none of the script's is only a warning (see loadScript).
 */
function refuseMistypedArguments(
  text: string,
  scriptArguments: Readonly<Record<string, string>>,
  path: string,
): void {
  const mentioned = mentionedNames(text);
  for (const name of Object.keys(scriptArguments)) {
    if (mentioned.has(name)) continue;
    const meant = nearest(
      name,
      [...mentioned].filter((candidate) => !Object.hasOwn(scriptArguments, candidate)),
    );
    if (meant !== undefined) {
      throw new ConfigError(
        `--args:${name}`,
        `${path} has no variable "${name}": did you mean --args:${meant}?`,
      );
    }
  }
}

/** Why a variable could not be filled, as a ConfigError naming the file and the place. */
function expansionError(
  result: Exclude<ExpansionResult, { kind: 'expanded' }>,
  path: string,
  where: string,
): ConfigError {
  switch (result.kind) {
    case 'missing': {
      const { name, envScheme, written } = result.reference;
      return new ConfigError(
        path,
        envScheme
          ? `${where}: environment variable ${name} is not set (used as ${written} with no default)`
          : `${where}: variable "${name}" has no value: pass --args:${name} VALUE, or give it a default (\${${name}:-…})`,
      );
    }
    case 'malformed':
      return new ConfigError(
        path,
        `${where}: malformed variable ${JSON.stringify(result.written)} (write \${name}, \${name:-default} or \${env://NAME}; $\${ for a literal \${)`,
      );
    default: {
      const unexpected: never = result;
      throw new TypeError(`unknown expansion ${JSON.stringify(unexpected)}`);
    }
  }
}

/** Fills the variables of a front matter value. */
function expand(text: string, lookup: VariableLookup, path: string, where: string): string {
  const result = expandVariables(text, lookup);
  if (result.kind !== 'expanded') throw expansionError(result, path, where);
  return result.value;
}

/** Fills the variables of the body; an error names the line of the file. */
function expandBody(parts: ScriptParts, lookup: VariableLookup, path: string): string {
  const result = expandVariables(parts.body, lookup);
  if (result.kind === 'expanded') return result.value;
  const written = result.kind === 'missing' ? result.reference.written : result.written;
  const index = Math.max(0, parts.body.indexOf(written));
  const line = parts.bodyLine + (parts.body.slice(0, index).match(/\n/g)?.length ?? 0);
  throw expansionError(result, path, `line ${line}`);
}

/** The front matter as config data: keys checked, `mcp-servers` renamed, settings expanded. */
function frontMatterData(raw: unknown, path: string, lookup: VariableLookup): Record<string, unknown> {
  if (raw === undefined || raw === null) return {};
  if (!isRecord(raw))
    throw new ConfigError(path, 'the front matter must be a YAML mapping (key: value lines)');
  const data: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    const serverKey = SERVER_KEYS.get(key);
    const setting = Object.hasOwn(settingsShape, key) ? key : settingAliases.get(key);
    if (serverKey !== undefined) {
      if (Object.hasOwn(data, serverKey))
        throw new ConfigError(path, `${key}: the same as mcpServers; keep one`);
      data[serverKey] = value;
    } else if (setting !== undefined && SCRIPT_SETTINGS.has(setting)) {
      data[key] =
        EXPANDED_SETTINGS.has(setting) && typeof value === 'string'
          ? expand(value, lookup, path, `front matter ${key}`)
          : value;
    } else {
      const known = [...SCRIPT_SETTINGS, 'mcpServers'].join(', ');
      const why = setting === undefined ? 'unknown key' : 'a setting for the config file, not a script:';
      throw new ConfigError(path, `front matter: ${why} "${key}" (a script takes ${known})`);
    }
  }
  return data;
}

/** A system prompt naming a file (relative to the script) becomes that file's absolute path. */
async function systemPromptOf(value: string | undefined, directory: string): Promise<string | undefined> {
  if (value === undefined) return undefined;
  const candidate = resolve(directory, value);
  const isFile = await stat(candidate).then(
    (info) => info.isFile(),
    () => false,
  );
  return isFile ? candidate : value;
}

/**
 * Reads a script file and fills its variables from `scriptArguments` (`--args:name value`) and
 * `env`. Throws a ConfigError naming the file for anything wrong in it.
 */
export async function loadScript(
  path: string,
  scriptArguments: Readonly<Record<string, string>>,
  env: Readonly<Record<string, string | undefined>>,
): Promise<ScriptFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(
      path,
      code === 'ENOENT' ? 'no such script file' : `cannot read the script: ${String(error)}`,
    );
  }
  const parts = splitScript(text, path);
  refuseMistypedArguments(text, scriptArguments, path);
  const argumentOf = (name: string): string | undefined =>
    Object.hasOwn(scriptArguments, name) ? scriptArguments[name] : undefined;
  const environmentOf = (name: string): string | undefined =>
    Object.hasOwn(env, name) ? env[name] : undefined;
  const frontLookup: VariableLookup = (reference) =>
    reference.envScheme
      ? environmentOf(reference.name)
      : (argumentOf(reference.name) ?? environmentOf(reference.name));
  const bodyLookup: VariableLookup = (reference) =>
    reference.envScheme ? environmentOf(reference.name) : argumentOf(reference.name);

  const raw =
    parts.frontMatter === undefined ? undefined : parseConfigText(parts.frontMatter, path, 'yaml').value;
  const data = frontMatterData(raw, path, frontLookup);
  // The config parser expands `${…}` in server entries from the environment it is given.
  const config = parseConfig(data, path, { ...env, ...scriptArguments });

  const prompt = expandBody(parts, bodyLookup, path).trim();
  if (prompt === '')
    throw new ConfigError(path, 'the script has no prompt (write it after the front matter)');

  const mentioned = mentionedNames(text);
  const unused = Object.keys(scriptArguments).filter((name) => !mentioned.has(name));
  const systemPrompt = await systemPromptOf(config.systemPrompt, dirname(path));
  return {
    path,
    prompt,
    ...definedProperties({
      model: config.model,
      systemPrompt,
      maxSteps: config.maxSteps,
      providerUrl: config.providerUrl,
    }),
    generation: config.generation,
    ...(Object.hasOwn(data, 'mcpServers') ? { servers: config.servers } : {}),
    warnings: [
      ...config.warnings,
      ...unused.map((name) => `${path}: --args:${name} is not used by the script`),
    ],
  };
}

/** The options to run with: the flags, and the script's settings where no flag is given. */
export function applyScript(options: CliOptions, script: ScriptFile): CliOptions {
  const pick = <K extends keyof CliOptions & keyof ScriptFile>(key: K) =>
    options[key] === undefined && script[key] !== undefined ? { [key]: script[key] } : {};
  const { generation } = script;
  const setting = <K extends keyof GenerationSettings & keyof CliOptions>(key: K) =>
    options[key] === undefined && generation[key] !== undefined ? { [key]: generation[key] } : {};
  return {
    ...options,
    prompt: script.prompt,
    ...pick('model'),
    ...pick('systemPrompt'),
    ...pick('maxSteps'),
    ...pick('providerUrl'),
    ...setting('maxTokens'),
    ...setting('temperature'),
    ...setting('topP'),
    ...setting('topK'),
    ...setting('stopSequences'),
  };
}
