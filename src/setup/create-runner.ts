/**
 * Composition: config → provider → MCP servers → Runner. This folder (like src/cli) is the edge
 * of the library and may import `providers/` and `config/`; the core in src/ never does.
 */
import { homedir } from 'node:os';
import { dirname } from 'node:path';
import { loadConfig, parseConfig, type LoadedConfig } from '../../config/index.js';
import { createProvider } from '../../providers/index.js';
import { ServerError } from '../errors.js';
import { McpPool, type PoolLogEntry, type ServerStatus } from '../mcp/pool.js';
import { optional } from '../optional.js';
import { Runner } from '../runner.js';
import { readSystemPrompt } from './system-prompt.js';
import type { GenerationSettings, Provider } from '../types.js';

/** The model used when neither the caller nor the config names one. */
export const DEFAULT_MODEL = 'ollama:mistral-small';

/** Options of {@link createRunner}. Explicit options win over the config file. */
export interface CreateRunnerOptions {
  /** `provider:model`, e.g. `anthropic:claude-sonnet-4-5`. Default: config `model`, else {@link DEFAULT_MODEL}. */
  readonly model?: string;
  /** A config file to read. Without it (and without `mcpServers`), `~/.mcp.json` and friends are searched. */
  readonly configPath?: string;
  /** Servers inline, in the config file's `mcpServers` format. Replaces any config file. */
  readonly mcpServers?: Readonly<Record<string, unknown>>;
  /** System prompt text (the config's `systemPrompt` may also name a file). */
  readonly systemPrompt?: string;
  /** Model calls per run before giving up (default 20). */
  readonly maxSteps?: number;
  /** Base URL of the provider API. */
  readonly providerUrl?: string;
  /** API key; overrides the provider's environment variable. */
  readonly providerApiKey?: string;
  /** Sampling settings; each overrides the config file's. */
  readonly settings?: GenerationSettings;
  /** Throw a ServerError when servers are configured and none of them started. */
  readonly requireServers?: boolean;
  /** Environment for keys, `${VAR}` expansion and the servers' base environment. Default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Where `~/.mcp.json` is looked for. Default: the user's home. */
  readonly homeDir?: string;
  /** Server stderr lines, junk output (`debug`) and failures (`warn`). Default: ignored. */
  readonly onServerLog?: (entry: PoolLogEntry) => void;
  /** Notes for the user (unsupported settings…). Default: ignored. */
  readonly onWarning?: (message: string) => void;
}

/** A Runner whose tools come from the MCP servers of a config. */
export class McpRunner extends Runner {
  readonly #pool: McpPool;

  constructor(options: ConstructorParameters<typeof Runner>[0] & { readonly pool: McpPool }) {
    super({ ...options, tools: options.pool, onClose: () => options.pool.close() });
    this.#pool = options.pool;
  }

  /** Each configured server: state, tool count, last error. */
  get servers(): readonly ServerStatus[] {
    return this.#pool.status();
  }

  /** The MCP pool, for listings (`/tools`) and status. */
  get pool(): McpPool {
    return this.#pool;
  }
}

/** What {@link assembleRunner} found on the way, for the CLI to report. */
export interface Assembly {
  readonly runner: McpRunner;
  readonly config: LoadedConfig;
  readonly modelString: string;
}

/** Reads the config, creates the provider (failing fast on a missing key), starts the servers. */
export async function assembleRunner(options: CreateRunnerOptions): Promise<Assembly> {
  const env = options.env ?? process.env;
  const homeDir = options.homeDir ?? homedir();
  const config =
    options.mcpServers === undefined
      ? await loadConfig({ ...optional('configPath', options.configPath), homeDir, env })
      : { ...parseConfig({ mcpServers: options.mcpServers }, 'mcpServers option', env), path: undefined };
  for (const warning of config.warnings) options.onWarning?.(warning);
  const modelString = options.model ?? config.model ?? DEFAULT_MODEL;
  const provider = await createModel(modelString, options, config, env);
  const pool = await McpPool.start({
    servers: config.servers,
    env,
    ...optional('initTimeoutMs', config.initTimeoutMs),
    ...optional('toolTimeoutMs', config.toolTimeoutMs),
    ...optional('log', options.onServerLog),
  });
  const started = pool.status();
  if (
    options.requireServers === true &&
    started.length > 0 &&
    started.every((server: ServerStatus) => server.state !== 'ready')
  ) {
    await pool.close();
    throw new ServerError('*', `none of the ${started.length} configured servers started`);
  }
  const systemPrompt =
    options.systemPrompt ??
    (await readSystemPrompt(
      config.systemPrompt,
      config.path === undefined ? process.cwd() : dirname(config.path),
    ));
  const maxSteps = options.maxSteps ?? config.maxSteps;
  const runner = new McpRunner({
    provider,
    pool,
    settings: { ...config.generation, ...options.settings },
    ...optional('systemPrompt', systemPrompt),
    ...optional('maxSteps', maxSteps),
  });
  return { runner, config, modelString };
}

/** Creates a Runner for a model with the tools of every configured MCP server. */
export async function createRunner(options: CreateRunnerOptions = {}): Promise<McpRunner> {
  return (await assembleRunner(options)).runner;
}

/** Creates the provider for a model string with the caller's and the config's URL and key. */
export function createModel(
  modelString: string,
  options: Pick<CreateRunnerOptions, 'providerUrl' | 'providerApiKey' | 'onWarning'>,
  config: Pick<LoadedConfig, 'providerUrl' | 'providerApiKey'>,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Provider> {
  const baseUrl = options.providerUrl ?? config.providerUrl;
  return createProvider(modelString, {
    env,
    ...optional('baseUrl', baseUrl),
    ...optional('apiKey', options.providerApiKey ?? config.providerApiKey),
    ...optional('warn', options.onWarning),
  });
}
