/**
 * From plain data (a parsed file, or `mcpServers` a program passes in) to a checked, typed config.
 * Pure: the environment is a parameter, and nothing is read or started here.
 */
import { agentDefinition, type AgentDefinition } from '../src/agents/definition.js';
import type { ServerDefinition } from '../src/mcp/definition.js';
import type { SafetyOptions } from '../src/safety/options.js';
import type { ToolChangePolicy } from '../src/safety/tool-pins.js';
import type { GenerationSettings } from '../src/core/types.js';
import type { Problem } from './problems.js';
import { configErrorFor, describeKind, problemsFromError, throwIfProblems } from './problems.js';
import type { FileSettings, SettingName } from './schema.js';
import { settingAliases, settingsSchema, settingsShape } from './schema.js';
import { approvalRuleSet, hooksConfig } from './safety-settings.js';
import { isPlainObject } from './server-form.js';
import { readServerEntry } from './servers.js';
import { environmentLookup } from './variables.js';
import { definedProperties } from '../src/util/defined-properties.js';

/** The environment `${VAR}` references are read from. */
export type ConfigEnvironment = Readonly<Record<string, string | undefined>>;

/**
 * The safety settings a config file may hold: fields of the one {@link SafetyOptions} type the
 * runner options and the guard take too (createRunner merges the caller's over these).
 */
export type ConfigSafetySettings = Pick<
  SafetyOptions,
  | 'approval'
  | 'hooks'
  | 'auditLog'
  | 'auditLogMaxBytes'
  | 'maxToolResultBytes'
  | 'untrustedContent'
  | 'budgets'
>;

/**
 * A checked config, whatever it came from. Settings the config does not set are absent. Its
 * safety settings are {@link ConfigSafetySettings} (`auditLog` as written; `loadConfig` resolves
 * it against the file's folder).
 */
/** The `telemetry` setting (see settingsShape). */
export interface TelemetryConfig {
  readonly endpoint?: string;
  readonly protocol?: 'http/protobuf' | 'http/json';
  readonly headers?: Readonly<Record<string, string>>;
  readonly serviceName?: string;
  readonly captureContent?: boolean;
}

export interface ParsedConfig extends ConfigSafetySettings {
  /** The servers to start, by name, with variables expanded. Disabled servers are not here. */
  readonly servers: Readonly<Record<string, ServerDefinition>>;
  /** Names of the servers marked `disabled: true` (so `/servers` can list them). */
  readonly disabledServers: readonly string[];
  /** Worth telling but not fatal (a server key we do not know, an empty file). One line each. */
  readonly warnings: readonly string[];
  /** Default model, `provider:model`. */
  readonly model?: string;
  /** System prompt text, or the path of a file holding it (resolved as `--system-prompt` is). */
  readonly systemPrompt?: string;
  /** Most model calls in one run. */
  readonly maxSteps?: number;
  /** How the model calls tools (`toolCalling`; docs/local-models.md). */
  readonly toolCalling?: 'auto' | 'native' | 'prompt' | 'none';
  /** Base URL of the provider's API. */
  readonly providerUrl?: string;
  /** API key for the provider. */
  readonly providerApiKey?: string;
  /** Generation settings, passed to the provider (flags override them one by one). */
  readonly generation: GenerationSettings;
  /** Config-wide startup timeout, in ms (already applied to every server that sets none). */
  readonly initTimeoutMs?: number;
  /** Config-wide tool call timeout, in ms (already applied to every server that sets none). */
  readonly toolTimeoutMs?: number;
  /** The context window and compaction settings (`contextWindow`, `compactAt`, `autoCompact`). */
  readonly context?: {
    readonly contextWindow?: number;
    readonly compactAt?: number;
    readonly toolSearch?: 'auto' | 'always' | 'never';
    readonly toolSearchAt?: number;
    readonly autoCompact?: boolean;
  };
  /** How elicitations are answered when nobody can be asked (home config only). */
  readonly elicitation?: { readonly policy: 'decline' | 'accept-defaults' };
  /** The folders servers may work in, as written (`loadConfig` resolves them; home config only). */
  readonly roots?: readonly string[];
  /** False: keep no conversation in the state folder (home config only). */
  readonly sessionPersistence?: boolean;
  /** What a changed tool definition is met with where a server sets nothing (home config only). */
  readonly toolChanges?: ToolChangePolicy;
  /** Durable workers' settings: the jobs database (home config or `--config` only). */
  readonly jobs?: { readonly database?: string };
  /** Named agents (docs/agents.md), each noting the file that defined it. */
  readonly agents?: readonly AgentDefinition[];
  /** Agent calls of one step that run at once. */
  readonly maxParallelAgents?: number;
  /** OpenTelemetry export settings (home config or `--config` only; docs/telemetry.md). */
  readonly telemetry?: TelemetryConfig;
}

/**
 * The top-level settings under their camelCase names. The Go mcphost's kebab-case spelling is
 * accepted too; setting both spellings of one key is an error, since one would silently lose.
 */
function readSettings(raw: Record<string, unknown>, problems: Problem[]): FileSettings {
  const writtenAs = new Map<string, string>();
  const input: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    // In YAML, `model:` with nothing after it is null: the same as not writing the key.
    if (value === null) continue;
    const name: SettingName | undefined = Object.hasOwn(settingsShape, key)
      ? (key as SettingName)
      : settingAliases.get(key);
    if (name === undefined) continue;
    const earlier = writtenAs.get(name);
    if (earlier !== undefined) {
      problems.push({ path: [key], message: `the same setting as "${earlier}"; keep one of them` });
      continue;
    }
    writtenAs.set(name, key);
    input[name] = value;
  }
  const result = settingsSchema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  // Report each problem under the key as the author wrote it.
  for (const problem of problemsFromError(result.error)) {
    const [first, ...rest] = problem.path;
    const written = typeof first === 'string' ? (writtenAs.get(first) ?? first) : first;
    problems.push({ path: written === undefined ? rest : [written, ...rest], message: problem.message });
  }
  return {};
}

function generationSettings(settings: FileSettings): GenerationSettings {
  const { maxTokens, temperature, topP, topK, stopSequences } = settings;
  return definedProperties({ maxTokens, temperature, topP, topK, stopSequences });
}

/**
 * Checks a config and gives it typed, with `${VAR}` expanded from `env`. `raw` is what a config
 * file holds (`{ mcpServers: {…}, model: …, … }`); `null` or `undefined` mean an empty config.
 * `source` names where it came from, for messages: a file path, or e.g. `createRunner({ mcpServers })`.
 *
 * Unknown top-level keys are ignored (Claude Desktop's file carries its own). Throws a ConfigError
 * whose message is one line naming the source, the key (server included) and what is wrong.
 */
export function parseConfig(
  raw: unknown,
  source: string,
  env: ConfigEnvironment,
  options: { readonly serversKey?: string } = {},
): ParsedConfig {
  const top = raw ?? {};
  if (!isPlainObject(top)) {
    throw configErrorFor(source, [{ path: [], message: `expected object, got ${describeKind(top)}` }]);
  }
  const problems: Problem[] = [];
  const warnings: string[] = [];
  const settings = readSettings(top, problems);

  const mcpServers = top.mcpServers ?? {};
  const entries: Array<[string, ServerDefinition]> = [];
  const disabledServers: string[] = [];
  if (isPlainObject(mcpServers)) {
    const context = {
      lookup: environmentLookup(env),
      defaults: definedProperties({
        initTimeoutMs: settings.initTimeout,
        toolTimeoutMs: settings.toolTimeout,
        tasks: settings.tasks,
        taskTimeoutMs: settings.taskTimeout,
      }),
      problems,
      warnings,
      ...definedProperties({ serversKey: options.serversKey }),
    };
    for (const [name, entry] of Object.entries(mcpServers)) {
      const result = readServerEntry(name, entry, context);
      if (result.kind === 'server') entries.push([name, result.definition]);
      if (result.kind === 'disabled') disabledServers.push(name);
    }
  } else {
    problems.push({
      path: [options.serversKey ?? 'mcpServers'],
      message: `expected object, got ${describeKind(mcpServers)}`,
    });
  }
  throwIfProblems(source, problems);
  const approval = approvalRuleSet(source, settings.approval, settings.permissions);
  const hooks = hooksConfig(settings.hooks);

  return {
    // fromEntries defines own properties, so a server named "__proto__" stays a server.
    servers: Object.fromEntries(entries),
    disabledServers,
    warnings: warnings.map((warning) => `${source}: ${warning}`),
    ...definedProperties({
      model: settings.model,
      systemPrompt: settings.systemPrompt,
      maxSteps: settings.maxSteps,
      toolCalling: settings.toolCalling,
      providerUrl: settings.providerUrl,
      providerApiKey: settings.providerApiKey,
    }),
    generation: generationSettings(settings),
    ...definedProperties({ initTimeoutMs: settings.initTimeout, toolTimeoutMs: settings.toolTimeout }),
    ...(approval === undefined ? {} : { approval: [approval] }),
    ...definedProperties({
      hooks,
      auditLog: settings.auditLog,
      maxToolResultBytes: settings.maxToolResultBytes,
    }),
    ...contextSettings(settings),
    ...definedProperties({
      auditLogMaxBytes: settings.auditLogMaxBytes,
      untrustedContent: settings.untrustedContent,
      budgets: settings.budgets,
      elicitation: settings.elicitation,
      roots: settings.roots,
      sessionPersistence: settings.sessionPersistence,
      toolChanges: settings.toolChanges,
      jobs: settings.jobs,
      agents:
        settings.agents === undefined
          ? undefined
          : Object.entries(settings.agents).map(([name, entry]) =>
              agentDefinition(name, entry, { kind: 'config', path: source }),
            ),
      maxParallelAgents: settings.maxParallelAgents,
      telemetry: settings.telemetry,
    }),
  };
}

/** `contextWindow`, `compactAt` and `autoCompact`, together, when any is set. */
function contextSettings(settings: FileSettings): Pick<ParsedConfig, 'context'> {
  const context = definedProperties({
    contextWindow: settings.contextWindow,
    compactAt: settings.compactAt,
    autoCompact: settings.autoCompact,
    toolSearch: settings.toolSearch,
    toolSearchAt: settings.toolSearchAt,
  });
  return Object.keys(context).length === 0 ? {} : { context };
}
