/**
 * Composition: config → provider → MCP servers → Runner. This folder (like src/cli) is the edge
 * of the library and may import `providers/` and `config/`; the core in src/ never does.
 */
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { loadConfig, parseConfig, type LoadedConfig } from '../../config/index.js';
import { createProvider, parseModelString } from '../../providers/index.js';
import { DEFAULT_LOCAL_MODEL } from '../../providers/local/model-names.js';
import { ServerError } from '../core/errors.js';
import { McpPool, type ServerStatus } from '../mcp/pool.js';
import { ServerLogBook } from '../mcp/server-logs.js';
import { checkRootDirectories } from '../mcp/roots.js';
import { planServerRoots, type ServerRoots } from '../mcp/server-roots.js';
import { QuestionQueue } from '../core/questions.js';
import { optional } from '../util/optional.js';
import type { assembleSafety } from '../safety/assemble.js';
import type { AuditSink } from '../safety/audit-log.js';
import type { GuardedToolHost } from '../safety/guarded-tool-host.js';
import { mergeSafetyOptions, type SafetyOptions } from '../safety/options.js';
import {
  configSafety,
  contentScreenFor,
  marksToolOutput,
  serverIdentity,
  toolOutputFolderFor,
  withToolPins,
  withUntrustedContentClause,
} from './safety-settings.js';
import { packageVersion } from '../util/version.js';
import { builtinApprovalRules, parseBuiltinNames, withBuiltinServers } from './builtin-servers.js';
import { requireSandboxSupport, withSandboxes } from './sandbox-servers.js';
import type { McpRunner } from './mcp-runner.js';
import type { CreateRunnerOptions } from './runner-options.js';
import { readSystemPrompt } from './system-prompt.js';
import { skillsFor } from './skills.js';
import { configureClientFor } from '../mcp/client-features.js';
import { serverFeatures, type LateParts } from './server-features.js';
import { OfferingsChanges } from '../mcp/offerings-changes.js';
import { defaultSignInStorePath, SignInStore } from '../mcp/auth/token-store.js';
import type { Provider } from '../core/types.js';
import { randomUuid } from '../util/random-id.js';
import { hostNotices, type HostNotices } from './host-event.js';

export type { McpRunner } from './mcp-runner.js';

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

export type { CreateRunnerOptions } from './runner-options.js';

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
  const withBuiltins =
    options.builtin === undefined || options.builtin.length === 0
      ? chosen
      : { ...chosen, servers: withBuiltinServers(chosen.servers, parseBuiltinNames(options.builtin)) };
  const config =
    options.sandbox === true
      ? { ...withBuiltins, servers: withSandboxes(withBuiltins.servers) }
      : withBuiltins;
  const notices = hostNotices(options.onEvent);
  for (const warning of config.warnings) notices.warning?.(warning);
  const modelString =
    options.model ?? config.model ?? defaultModel(options.providerUrl ?? config.providerUrl, env);
  // A bad model string is blamed on where it came from: the option, or the config file's `model`.
  const modelSource =
    options.model !== undefined
      ? '--model'
      : config.model !== undefined
        ? `${config.path ?? 'config'}: model`
        : `the default model ${modelString} (no -m, no "model" in the config)`;
  // One queue per runner: tool approvals and server questions are asked one at a time.
  const questionQueue = new QuestionQueue();
  const serverLogs = new ServerLogBook();
  const offeringsChanges = new OfferingsChanges();
  if (notices.offeringsChange !== undefined) offeringsChanges.listen(notices.offeringsChange);
  // Cheap checks of the input come before any server starts: a bad model string fails at once.
  parseModelString(modelString, modelSource);
  const safety = withToolPins(mergeSafetyOptions(configSafety(config), options.safety ?? {}), homeDir, env);
  // Each server's roots: its own folders kept, the working folder to the rest (server-roots.ts).
  const roots = await planServerRoots({
    servers: config.servers,
    shared:
      options.roots !== undefined
        ? await checkRootDirectories(options.roots, projectDir, 'roots')
        : config.roots !== undefined
          ? await checkRootDirectories(config.roots, projectDir, `${config.path ?? 'config'}: roots`)
          : undefined,
    projectDir,
    homeDir,
    configLabel: config.path ?? 'mcpServers',
  });
  // Asked for and impossible is an error before anything starts, never a run without it.
  await requireSandboxSupport(config.servers, {
    env,
    fromFlag: options.sandbox === true,
    configPath: config.path,
  });
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
        notices,
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
    ...optional('onProgress', notices.toolProgress),
    servers: config.servers,
    env,
    clientInfo: { name: 'mcphost', version: packageVersion() },
    ...optional('initTimeoutMs', config.initTimeoutMs),
    ...optional('toolTimeoutMs', config.toolTimeoutMs),
    ...optional('log', notices.serverLog),
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
          openAuditLog(resolve(auditLogPath), notices.warning, {
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
      notices,
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
    readonly notices: HostNotices;
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
    readonly roots: ServerRoots;
    readonly late: LateParts;
  },
): Assembly {
  const {
    options,
    notices,
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
  const sessionId = randomUuid();
  const onApproval = options.questions?.approveToolCall;
  const skills = skillsFor({ pool, config, homeDir: options.homeDir, env, onWarning: notices.warning });
  const safety = assembleSafety({
    host: skills.host, // the pool, and the host's `skill` tool under the same guard
    // A built-in server that asks by default (bash) adds its rule set; the strictest set wins.
    safety: {
      ...settings,
      approval: [...builtinApprovalRules(config.servers), ...(settings.approval ?? [])],
      // Where someone can be asked (the chat, a library with a callback), a tool that does not say
      // it is read-only is asked about; where no one can (-p, workers), calls run as before.
      approvalFallback:
        settings.approvalFallback ?? (onApproval === undefined ? 'allow' : 'ask-unless-read-only'),
    },
    locate: (name) => skills.locate(name),
    identify: (server) => serverIdentity(pool, config.servers[server], server),
    ...optional('audit', audit),
    ...optional('toolOutputFolder', toolOutputFolderFor(options, env)),
    ...optional('onApproval', onApproval),
    ...optional('questions', options.questions),
    ...optional('onFlagged', notices.contentFlagged),
    hookContext: {
      sessionId,
      model: modelString,
      interactive: options.interactive ?? false,
      cwd: projectDir,
    },
    env,
    ...optional('onWarning', notices.warning),
    ...optional('onToolChange', notices.toolChange),
    questionQueue: context.questionQueue,
  });
  const guard: GuardedToolHost = safety.guard;
  const runner = new McpRunner({
    provider,
    pool,
    skills: skills.library,
    serverLogs: context.serverLogs,
    roots: context.roots,
    offeringsChanges: context.offeringsChanges,
    tools: guard,
    onClose: async () => {
      // Together: calls in flight end when the pool closes, and the guard waits for their audit lines.
      // The provider in use (`/model` may have replaced the first) releases an embedded model's memory.
      await Promise.all([pool.close(), guard.close(), runner.provider.close?.()]);
    },
    ...safety.runnerOptions,
    settings: { ...config.generation, ...options.settings },
    markToolOutput: marksToolOutput(settings),
    // `@server:uri` and `/server:prompt` content passes the same screen and marking as tool results.
    offerings: {
      screen: contentScreenFor(settings, context.questionQueue, options.questions, notices.contentFlagged),
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
      ...optional('baseUrl', baseUrl),
      ...optional('apiKey', options.providerApiKey ?? config.providerApiKey),
      ...optional('warn', hostNotices(options.onEvent).warning),
      modelFiles: {
        ...optional('homeDir', options.homeDir),
        ...optional('cwd', options.projectDir),
        ...optional('signal', options.signal),
        ...options.modelFiles,
      },
      // The window the budget uses (src/context) is the one a provider that sends it (Ollama) sends.
      ...optional('contextWindow', options.context?.contextWindow ?? config.context?.contextWindow),
    },
    source,
  );
}
