/**
 * Composition: config → provider → MCP servers → Runner. This folder (like src/cli) is the edge
 * of the library and may import `providers/` and `config/`; the core in src/ never does.
 */
import { randomUUID } from 'node:crypto';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import {
  loadConfig,
  parseConfig,
  type LoadedConfig,
  type ProjectConfigCandidate,
} from '../../config/index.js';
import { createProvider, parseModelString } from '../../providers/index.js';
import { ServerError } from '../errors.js';
import { McpPool, type PoolLogEntry, type ServerStatus, type ToolProgress } from '../mcp/pool.js';
import { ServerLogBook, type ServerLogLevel, type ServerLogMessage } from '../mcp/server-logs.js';
import type { ElicitationOutcome, ElicitationPolicy } from '../mcp/elicitation.js';
import { checkRootDirectories, RootList } from '../mcp/roots.js';
import type { SamplingOutcome } from '../mcp/sampling.js';
import { QuestionQueue } from '../questions.js';
import { optional } from '../optional.js';
import type { ContextOptions } from '../context/context-budget.js';
import type { RunnerOptions } from '../runner.js';
import type { ApprovalHandler } from '../safety/approval.js';
import type { assembleSafety } from '../safety/assemble.js';
import type { AuditSink } from '../safety/audit-log.js';
import type { GuardedToolHost, GuardedToolHostOptions } from '../safety/guarded-tool-host.js';
import { mergeSafetyOptions, type SafetyOptions } from '../safety/options.js';
import {
  configSafety,
  contentScreenFor,
  marksToolOutput,
  serverIdentity,
  toolOutputFolderFor,
  withUntrustedContentClause,
} from './safety-settings.js';
import { packageVersion } from '../version.js';
import { builtinApprovalRules, parseBuiltinNames, withBuiltinServers } from './builtin-servers.js';
import type { McpRunner } from './mcp-runner.js';
import { readSystemPrompt } from './system-prompt.js';
import type { ServerDefinition } from '../mcp/definition.js';
import { configureClientFor } from '../mcp/client-features.js';
import { serverFeatures, type LateParts } from './server-features.js';
import { OfferingsChanges, type OfferingsChange } from '../mcp/offerings-changes.js';
import type { ElicitationAnswer, ElicitationRequest, UserQuestions } from '../questions.js';
import { defaultSignInStorePath, SignInStore } from '../mcp/auth/token-store.js';
import type { GenerationSettings, Message, Provider } from '../types.js';

export type { McpRunner } from './mcp-runner.js';

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
  /**
   * Where sign-ins to remote servers (OAuth tokens, client registrations) are kept. Default
   * `$XDG_STATE_HOME/mcphost/oauth.json`; `false` turns sign-in off for every server.
   */
  readonly signInStore?: string | false;
  /** Server stderr lines, junk output (`debug`) and failures (`warn`). Default: ignored. */
  readonly onServerLog?: (entry: PoolLogEntry) => void;
  /** Notes for the user (unsupported settings…). Default: ignored. */
  readonly onWarning?: (message: string) => void;
  /**
   * Servers to start instead of the config's (a script file's `mcpServers`); unlike `mcpServers`,
   * the config file is still read for its other settings.
   */
  readonly servers?: Readonly<Record<string, ServerDefinition>>;
  /**
   * Built-in servers to turn on for this run, besides the configured ones (`["fs", "todo"]`;
   * see docs/builtin-servers.md). Each is named as its server (`fs__read_file`).
   */
  readonly builtin?: readonly string[];
  /** A conversation to continue (a loaded session). */
  readonly history?: readonly Message[];
  /** The context window and compaction; each field overrides the config's (see docs/long-conversations.md). */
  readonly context?: ContextOptions;
  /**
   * Where the whole text of a tool result over the budget is saved. Default: `tool-output` in the
   * state folder (`$XDG_STATE_HOME/mcphost`, else `~/.local/state/mcphost`); `null` saves nothing.
   */
  readonly toolOutputFolder?: string | null;
  /** Called, and awaited, after every change of the history (see {@link RunnerOptions}). */
  readonly onHistoryChange?: RunnerOptions['onHistoryChange'];
  /**
   * Asks the user about a tool call an approval rule (or a PreToolUse hook) marks `ask`. Default:
   * none, and such calls are denied (unless `approveAll`).
   */
  readonly onApproval?: ApprovalHandler;
  /**
   * Asks the user things: tool approvals, elicitations, sampling reviews, sign-in pages, flagged
   * content (see {@link UserQuestions}). A missing method takes the safe answer. `onApproval`, when
   * given, wins over `questions.approveToolCall`.
   */
  readonly questions?: UserQuestions;
  /**
   * Answers servers' elicitations (form and URL mode); wins over `questions.elicit`. Default: none,
   * and every elicitation is declined. Answers to a form are checked against its schema before
   * they are sent; a form that cannot be shown, a bad answer or a suspicious URL is declined.
   */
  readonly onElicitation?: (request: ElicitationRequest) => Promise<ElicitationAnswer>;
  /**
   * How elicitations are answered when there is no `onElicitation` / `questions.elicit`:
   * `decline` every one, or `accept-defaults` (a form whose required fields all have defaults is
   * accepted with the schema's defaults). Default: the config file's `elicitation`, else decline.
   */
  readonly elicitation?: { readonly policy: ElicitationPolicy };
  /** Told how each elicitation was answered (and why, when the host answered for the user). */
  readonly onElicitationOutcome?: (outcome: ElicitationOutcome) => void;
  /**
   * The folders servers may work in (MCP roots; server-filesystem, for one, takes its allowed
   * folders from them). Relative ones are taken from `projectDir`. Default: the config's `roots`,
   * else `projectDir` alone. Change them later with `runner.setRoots()`.
   */
  readonly roots?: readonly string[];
  /**
   * Told what became of each server's sampling request (sent, or declined and why). Sampling is
   * off unless an `approval.sampling` rule allows it for the server (`safety.approval`), or
   * `questions.reviewSampling` lets a person review it (see docs/mcp-features.md).
   */
  readonly onSamplingOutcome?: (outcome: SamplingOutcome) => void;
  /** Progress reports of running tool calls (every call carries a progress token). */
  readonly onProgress?: (progress: ToolProgress) => void;
  /**
   * A server's resource or prompt list changed (`list-changed`), or a subscribed resource was
   * updated (`resource-updated`; subscribe with `runner.mcp.subscribe`). Listeners added later go
   * through `runner.mcp.onChange`.
   */
  readonly onOfferingsChange?: (change: OfferingsChange) => void;
  /** Servers' log messages (`notifications/message`). Also passed to `onServerLog` as `debug`. */
  readonly onServerLogMessage?: (server: string, message: ServerLogMessage) => void;
  /** The least severe log level servers should send (`logging/setLevel`). Default: the server's own. */
  readonly serverLogLevel?: ServerLogLevel;
  /**
   * Safety settings (`approveAll`, `auditLog`, `untrustedContent`, `budgets`…); each one set here
   * overrides the config file's. The merged object goes unchanged to the tool guard.
   */
  readonly safety?: SafetyOptions;
  /**
   * Told when the untrusted-content detector flags a tool result, an attached resource or a prompt
   * (the CLI shows it).
   */
  readonly onContentFlagged?: GuardedToolHostOptions['onFlagged'];
  /** Told to hooks (`interactive`): true for a chat. Default false. */
  readonly interactive?: boolean;
  /**
   * The folder whose `.mcp.json` / `.mcphost.*` is a project config (used once trusted). Default
   * `process.cwd()`. Not used with `configPath` or `mcpServers`.
   */
  readonly projectDir?: string;
  /**
   * Asked about a project config that is not trusted yet; resolve true to trust it (remembered for
   * that content). Default: none, and an untrusted project config is not used (with a warning).
   */
  readonly trustProject?: (project: ProjectConfigCandidate) => Promise<boolean>;
  /**
   * Cancels the start: servers already begun are ended and createRunner rejects with AbortedError.
   * It does not reach the runs; give each `run()` its own signal.
   */
  readonly signal?: AbortSignal;
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
  const projectDir = resolve(options.projectDir ?? process.cwd());
  const loaded: LoadedConfig =
    options.mcpServers === undefined
      ? await loadConfig({
          ...optional('configPath', options.configPath),
          homeDir,
          env,
          projectDir,
          ...optional('trustProject', options.trustProject),
        })
      : { ...parseConfig({ mcpServers: options.mcpServers }, 'mcpServers option', env), path: undefined };
  const chosen =
    options.servers === undefined ? loaded : { ...loaded, servers: options.servers, disabledServers: [] };
  const config =
    options.builtin === undefined || options.builtin.length === 0
      ? chosen
      : { ...chosen, servers: withBuiltinServers(chosen.servers, parseBuiltinNames(options.builtin)) };
  for (const warning of config.warnings) options.onWarning?.(warning);
  const modelString = options.model ?? config.model ?? DEFAULT_MODEL;
  // A bad model string is blamed on where it came from: the option, or the config file's `model`.
  const modelSource =
    options.model === undefined && config.model !== undefined
      ? `${config.path ?? 'config'}: model`
      : '--model';
  // One queue per runner: tool approvals and server questions are asked one at a time.
  const questionQueue = new QuestionQueue();
  const serverLogs = new ServerLogBook();
  const offeringsChanges = new OfferingsChanges();
  if (options.onOfferingsChange !== undefined) offeringsChanges.listen(options.onOfferingsChange);
  // Cheap checks of the input come before any server starts: a bad model string fails at once.
  parseModelString(modelString, modelSource);
  const safety = mergeSafetyOptions(configSafety(config), options.safety ?? {});
  const roots = new RootList(
    options.roots !== undefined
      ? await checkRootDirectories(options.roots, projectDir, 'roots')
      : config.roots !== undefined
        ? await checkRootDirectories(config.roots, projectDir, `${config.path ?? 'config'}: roots`)
        : [projectDir],
  );
  // Sampling runs on the runner's provider, under the guard's rules and budgets: none exists yet
  // while the servers start, so the handler reads them from here once the runner is built.
  const late: LateParts = {};
  // The servers start first, and the host's own set-up (the provider's SDK, the system prompt, the
  // audit log) runs while they do: a server behind `npx` may take seconds to answer, and nothing
  // here needs it. A set-up failure (a missing API key, an unreadable prompt file) cancels the start.
  const setUpFailed = new AbortController();
  const poolStart = McpPool.start({
    configureClient: configureClientFor(
      serverFeatures({
        options,
        queue: questionQueue,
        serverLogs,
        elicitationPolicy: (options.elicitation ?? config.elicitation)?.policy,
        safety,
        roots,
        late,
        changes: offeringsChanges,
      }),
    ),
    onListChanged: (server, list) => {
      offeringsChanges.announce({ type: 'list-changed', server, list });
    },
    ...optional('serverLogLevel', options.serverLogLevel),
    ...optional('onProgress', options.onProgress),
    servers: config.servers,
    env,
    clientInfo: { name: 'mcphost', version: packageVersion() },
    ...optional('initTimeoutMs', config.initTimeoutMs),
    ...optional('toolTimeoutMs', config.toolTimeoutMs),
    ...optional('log', options.onServerLog),
    signal:
      options.signal === undefined
        ? setUpFailed.signal
        : AbortSignal.any([options.signal, setUpFailed.signal]),
    ...(options.signInStore === false
      ? {}
      : {
          signIn: {
            store: new SignInStore(options.signInStore ?? defaultSignInStorePath(homeDir, env)),
            ...optional('questions', options.questions),
          },
        }),
  });
  // Settled later (awaited below); until then a cancelled start must not count as unhandled.
  poolStart.catch(() => undefined);
  const auditLogPath = safety.auditLog;
  const setUp = Promise.all([
    createModel(modelString, options, config, env, modelSource),
    options.systemPrompt ??
      readSystemPrompt(
        config.systemPrompt,
        // Set whenever a config file sets systemPrompt: relative paths are the file's.
        config.systemPromptDirectory ?? process.cwd(),
        `${config.path ?? 'config'}: systemPrompt`,
      ),
    auditLogPath === undefined
      ? undefined
      : import('../safety/audit-log.js').then(({ openAuditLog }) =>
          openAuditLog(resolve(auditLogPath), options.onWarning, {
            ...optional('maxBytes', safety.auditLogMaxBytes),
          }),
        ),
    // Loaded here rather than with this module, so that they load while the servers start.
    loadAssemblyParts(),
  ]);
  let provider: Provider;
  let userSystemPrompt: string | undefined;
  let audit: AuditSink | undefined;
  let parts: AssemblyParts;
  try {
    [provider, userSystemPrompt, audit, parts] = await setUp;
  } catch (error) {
    setUpFailed.abort();
    // The start ends every server it began before it settles; its own outcome says nothing new.
    await poolStart.then(
      (pool) => pool.close(),
      () => undefined,
    );
    throw error;
  }
  const systemPrompt = withUntrustedContentClause(userSystemPrompt, safety);
  const pool = await poolStart;
  try {
    return assembleAroundPool(pool, parts, {
      options,
      config,
      env,
      provider,
      modelString,
      systemPrompt,
      userSystemPrompt,
      audit,
      projectDir,
      questionQueue,
      serverLogs,
      offeringsChanges,
      safety,
      roots,
      late,
    });
  } catch (error) {
    // Whatever failed after the servers started, they must not outlive it.
    await pool.close();
    throw error;
  }
}

/** The modules that build the runner around the pool. */
interface AssemblyParts {
  readonly assembleSafety: typeof assembleSafety;
  readonly McpRunner: typeof McpRunner;
}

async function loadAssemblyParts(): Promise<AssemblyParts> {
  const [safety, runner] = await Promise.all([import('../safety/assemble.js'), import('./mcp-runner.js')]);
  return { assembleSafety: safety.assembleSafety, McpRunner: runner.McpRunner };
}

/** The part of {@link assembleRunner} that runs once the servers are up (and may still throw). */
function assembleAroundPool(
  pool: McpPool,
  { assembleSafety, McpRunner }: AssemblyParts,
  context: {
    readonly options: CreateRunnerOptions;
    readonly config: LoadedConfig;
    readonly env: Readonly<Record<string, string | undefined>>;
    readonly provider: Provider;
    readonly modelString: string;
    readonly systemPrompt: string | undefined;
    readonly userSystemPrompt: string | undefined;
    readonly audit: AuditSink | undefined;
    readonly projectDir: string;
    readonly questionQueue: QuestionQueue;
    readonly serverLogs: ServerLogBook;
    readonly offeringsChanges: OfferingsChanges;
    readonly safety: SafetyOptions;
    readonly roots: RootList;
    readonly late: LateParts;
  },
): Assembly {
  const {
    options,
    config,
    env,
    provider,
    modelString,
    systemPrompt,
    audit,
    projectDir,
    safety: settings,
  } = context;
  const started = pool.status();
  if (
    options.requireServers === true &&
    started.length > 0 &&
    started.every((server: ServerStatus) => server.state !== 'ready')
  ) {
    throw new ServerError('*', `none of the ${started.length} configured servers started`);
  }
  const maxSteps = options.maxSteps ?? config.maxSteps;
  const sessionId = randomUUID();
  const safety = assembleSafety({
    host: pool,
    // A built-in server that asks by default (bash) adds its rule set; the strictest set wins.
    safety: {
      ...settings,
      approval: [...builtinApprovalRules(config.servers), ...(settings.approval ?? [])],
    },
    locate: (name) => pool.locate(name),
    identify: (server) => serverIdentity(pool, config.servers[server], server),
    ...optional('audit', audit),
    ...optional('toolOutputFolder', toolOutputFolderFor(options, env)),
    ...optional('onApproval', options.onApproval ?? options.questions?.approveToolCall),
    ...optional('questions', options.questions),
    ...optional('onFlagged', options.onContentFlagged),
    hookContext: {
      sessionId,
      model: modelString,
      interactive: options.interactive ?? false,
      cwd: projectDir,
    },
    env,
    ...optional('onWarning', options.onWarning),
    questionQueue: context.questionQueue,
  });
  const guard: GuardedToolHost = safety.guard;
  const runner = new McpRunner({
    provider,
    pool,
    serverLogs: context.serverLogs,
    roots: context.roots,
    offeringsChanges: context.offeringsChanges,
    tools: guard,
    onClose: async () => {
      // Together: calls in flight end when the pool closes, and the guard waits for their audit lines.
      await Promise.all([pool.close(), guard.close()]);
    },
    ...safety.runnerOptions,
    settings: { ...config.generation, ...options.settings },
    markToolOutput: marksToolOutput(settings),
    // `@server:uri` and `/server:prompt` content passes the same screen and marking as tool results.
    offerings: {
      screen: contentScreenFor(settings, context.questionQueue, options.questions, options.onContentFlagged),
      markAsData: marksToolOutput(settings),
    },
    ...optional('systemPrompt', systemPrompt),
    // Saved sessions keep the user's own prompt; the clause follows the settings of each run.
    userSystemPrompt: context.userSystemPrompt,
    ...optional('maxSteps', maxSteps),
    ...optional('history', options.history),
    ...optional('onHistoryChange', options.onHistoryChange),
    context: { ...config.context, ...options.context },
  });
  context.late.sampling = {
    provider: () => runner.provider,
    turn: () => guard.turn,
    decide: (server) => guard.decideSampling(server),
    admit: (server) => guard.admitSampling(server),
    ...optional('audit', audit),
    sessionId,
  };
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
  source = '--model',
): Promise<Provider> {
  const baseUrl = options.providerUrl ?? config.providerUrl;
  return createProvider(
    modelString,
    {
      env,
      ...optional('baseUrl', baseUrl),
      ...optional('apiKey', options.providerApiKey ?? config.providerApiKey),
      ...optional('warn', options.onWarning),
    },
    source,
  );
}
