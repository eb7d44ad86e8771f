/**
 * Composition: config → provider → MCP servers → Runner. This folder (like src/cli) is the edge
 * of the library and may import `providers/` and `config/`; the core in src/ never does.
 */
import { randomUUID } from 'node:crypto';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { loadConfig, parseConfig, type LoadedConfig } from '../../config/index.js';
import { parseModelString } from '../../providers/index.js';
import { McpPool, noServerStarted, type McpPoolOptions } from '../mcp/pool.js';
import type { ServerDefinition } from '../mcp/definition.js';
import { ServerLogBook } from '../mcp/server-logs.js';
import { checkRootDirectories } from '../mcp/roots.js';
import { planServerRoots, type ServerRoots } from '../mcp/server-roots.js';
import { QuestionQueue } from '../core/questions.js';
import type { AuditSink } from '../safety/audit-log.js';
import { mergeSafetyOptions } from '../safety/options.js';
import { configSafety, withToolPins, withUntrustedContentClause } from './safety-settings.js';
import { packageVersion } from '../util/version.js';
import { parseBuiltinNames, withBuiltinHost, withBuiltinServers } from './builtin-servers.js';
import { requireSandboxSupport, withSandboxes } from './sandbox-servers.js';
import type { McpRunner } from './mcp-runner.js';
import type { CreateRunnerOptions } from './runner-options.js';
import { readSystemPrompt } from './system-prompt.js';
import { configureClientFor } from '../mcp/client-features.js';
import { serverFeatures } from './server-features.js';
import { OfferingsChanges } from '../mcp/offerings-changes.js';
import { defaultSignInStorePath, SignInStore } from '../mcp/auth/token-store.js';
import type { Provider } from '../core/types.js';
import { hostNotices } from './host-event.js';
import { createModel, defaultModel } from './model-choice.js';
import {
  assembleAroundPool,
  loadAssemblyParts,
  type AssemblyParts,
  type RunnerAroundPool,
} from './runner-around-pool.js';
import { definedProperties } from '../util/defined-properties.js';
import type { AgentDefinition } from '../agents/definition.js';
import { checkedAgents, loadAgentCatalog, requireAgent } from './agents.js';
import { runnerTelemetry } from './telemetry.js';

export type { McpRunner } from './mcp-runner.js';

export type { CreateRunnerOptions } from './runner-options.js';
export { createModel, defaultModel, DEFAULT_MODEL, DEFAULT_OLLAMA_MODEL } from './model-choice.js';

/** What {@link assembleRunner} found on the way, for the CLI to report. */
export interface Assembly {
  readonly runner: McpRunner;
  readonly config: LoadedConfig;
  readonly modelString: string;
  /** The runner's audit log, if the settings keep one (one sink per log: see src/setup/job-host.ts). */
  readonly audit: AuditSink | undefined;
  /** The named agents found (a batch job's `agent` names one). */
  readonly agents: ReadonlyMap<string, AgentDefinition>;
  /**
   * Starts more servers as this runner's were started (roots, sandbox, sign-in, and their
   * questions, logs and sampling through this runner), in a pool of their own that the caller
   * closes: a batch job's per-job servers. Throws a ServerError when none of them started.
   */
  startServers(servers: Readonly<Record<string, ServerDefinition>>, start: ServersStart): Promise<McpPool>;
}

/** How {@link Assembly.startServers} starts a pool. */
export interface ServersStart {
  /** Their environment (`${VAR}` already expanded in the definitions). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly signal?: AbortSignal;
}

/** Reads the config, creates the provider (failing fast on a missing key), starts the servers. */
export async function assembleRunner(options: CreateRunnerOptions): Promise<Assembly> {
  const env = options.env ?? process.env;
  const homeDir = options.homeDir ?? homedir();
  const projectDir = resolve(options.projectDir ?? process.cwd());
  const loaded: LoadedConfig =
    options.mcpServers === undefined
      ? await loadConfig({
          ...definedProperties({ configPath: options.configPath }),
          homeDir,
          env,
          projectDir,
          ...definedProperties({ trustProject: options.trustProject, askInput: options.askInput }),
        })
      : { ...parseConfig({ mcpServers: options.mcpServers }, 'mcpServers option', env), path: undefined };
  const configured =
    options.servers === undefined ? loaded : { ...loaded, servers: options.servers, disabledServers: [] };
  const chosen = withAdditionalServers(configured, options.additionalServers);
  const withBuiltins =
    options.builtin === undefined || options.builtin.length === 0
      ? chosen
      : { ...chosen, servers: withBuiltinServers(chosen.servers, parseBuiltinNames(options.builtin)) };
  const sandboxed =
    options.sandbox === true
      ? { ...withBuiltins, servers: withSandboxes(withBuiltins.servers) }
      : withBuiltins;
  const config =
    options.builtinHost === undefined
      ? sandboxed
      : { ...sandboxed, servers: withBuiltinHost(sandboxed.servers, options.builtinHost) };
  const notices = hostNotices(options.onEvent);
  for (const warning of config.warnings) notices.warning?.(warning);
  const agents = checkedAgents(
    await loadAgentCatalog({
      config,
      homeDir,
      env,
      ...definedProperties({ agentsOption: options.agents }),
    }),
  );
  // `--agent NAME`: the run is that agent's (its model below an explicit -m, its prompt, its tools).
  const direct = options.agent === undefined ? undefined : requireAgent(agents, options.agent, '--agent');
  const modelString =
    options.model ??
    direct?.model ??
    config.model ??
    defaultModel(options.providerUrl ?? config.providerUrl, env);
  // A bad model string is blamed on where it came from: the option, or the config file's `model`.
  const modelSource =
    options.model !== undefined
      ? '--model'
      : direct?.model !== undefined
        ? `agent ${direct.name}: model`
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
  const safety = withToolPins(mergeSafetyOptions(configSafety(config), options.safety ?? {}), options, env);
  const sharedRoots =
    options.roots !== undefined
      ? await checkRootDirectories(options.roots, projectDir, 'roots')
      : config.roots !== undefined
        ? await checkRootDirectories(config.roots, projectDir, `${config.path ?? 'config'}: roots`)
        : undefined;
  // Each server's roots: its own folders kept, the working folder to the rest (server-roots.ts).
  const rootsOf = (servers: Readonly<Record<string, ServerDefinition>>) =>
    planServerRoots({
      servers,
      shared: sharedRoots,
      projectDir,
      homeDir,
      configLabel: config.path ?? 'mcpServers',
    });
  // Asked for and impossible is an error before anything starts, never a run without it.
  const checkSandboxes = (servers: Readonly<Record<string, ServerDefinition>>) =>
    requireSandboxSupport(servers, { env, fromFlag: options.sandbox === true, configPath: config.path });
  const roots = await rootsOf(config.servers);
  await checkSandboxes(config.servers);
  // Sampling runs on the runner's provider, under the guard's rules and budgets: none exists yet
  // while the servers start, so the handler reads them from here once the runner is built.
  // Hooks, audit lines and sampling requests of this runner carry it.
  const sessionId = randomUUID();
  // The sampling handler goes to the pool before the runner and the guard exist: they are built
  // around the pool (a genuine cycle). It reads them through `samplingHost` once they do; a
  // request that comes before then is declined.
  let aroundPool: RunnerAroundPool | undefined;
  // The servers start first, and the host's own set-up (the provider's SDK, the system prompt, the
  // audit log) runs while they do: a server behind `npx` may take seconds to answer, and nothing
  // here needs it. A set-up failure (a missing API key, an unreadable prompt file) cancels the start.
  const setUpFailed = new AbortController();
  // Spans only when the program registered a provider; the servers' requests carry its context.
  const telemetry = await runnerTelemetry(options.telemetry, env);
  const poolOptions = (
    servers: Readonly<Record<string, ServerDefinition>>,
    serverRoots: ServerRoots,
    start: ServersStart,
  ): McpPoolOptions => ({
    configureClient: configureClientFor(
      serverFeatures({
        options,
        notices,
        queue: questionQueue,
        serverLogs,
        elicitationPolicy: (options.elicitation ?? config.elicitation)?.policy,
        safety,
        roots: serverRoots,
        samplingHost: () => aroundPool?.sampling,
        changes: offeringsChanges,
      }),
    ),
    onListChanged: (server, list) => {
      offeringsChanges.announce({ type: 'list-changed', server, list });
    },
    ...definedProperties({
      serverLogLevel: options.serverLogLevel,
      onProgress: notices.toolProgress,
      traceContext: telemetry?.telemetry.traceContext,
      startObserver: telemetry?.telemetry.serverStarts,
    }),
    servers,
    env: start.env,
    clientInfo: { name: 'mcphost', version: packageVersion() },
    ...definedProperties({
      initTimeoutMs: config.initTimeoutMs,
      toolTimeoutMs: config.toolTimeoutMs,
      log: notices.serverLog,
    }),
    ...definedProperties({ signal: start.signal }),
    ...(options.signInStore === false
      ? {}
      : {
          signIn: {
            store: new SignInStore(options.signInStore ?? defaultSignInStorePath(homeDir, env)),
            ...definedProperties({ questions: options.questions }),
          },
        }),
  });
  const poolStart = McpPool.start(
    poolOptions(config.servers, roots, {
      env,
      signal:
        options.signal === undefined
          ? setUpFailed.signal
          : AbortSignal.any([options.signal, setUpFailed.signal]),
    }),
  );
  // Settled later (awaited below); until then a cancelled start must not count as unhandled.
  poolStart.catch(() => undefined);
  const auditLogPath = safety.auditLog;
  const setUp = Promise.all([
    createModel(modelString, options, config, env, modelSource),
    options.systemPrompt ??
      direct?.systemPrompt ??
      readSystemPrompt(
        config.systemPrompt,
        // Set whenever a config file sets systemPrompt: relative paths are the file's.
        config.systemPromptDirectory ?? process.cwd(),
        `${config.path ?? 'config'}: systemPrompt`,
      ),
    auditLogPath === undefined
      ? undefined
      : import('../safety/audit-log.js').then(({ openAuditLog }) =>
          openAuditLog(
            resolve(auditLogPath),
            notices.warning,
            definedProperties({ maxBytes: safety.auditLogMaxBytes }),
          ),
        ),
    // Loaded here rather than with this module, so that they load while the servers start.
    loadAssemblyParts(options.apps !== undefined),
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
  telemetry?.setPool(pool);
  try {
    aroundPool = assembleAroundPool(pool, parts, {
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
      sessionId,
      agents,
      ...definedProperties({ direct, telemetry: telemetry?.telemetry }),
    });
    const startServers = async (
      given: Readonly<Record<string, ServerDefinition>>,
      start: ServersStart,
    ): Promise<McpPool> => {
      const servers = options.sandbox === true ? withSandboxes(given) : given;
      await checkSandboxes(servers);
      const started = await McpPool.start(poolOptions(servers, await rootsOf(servers), start));
      const noneStarted = noServerStarted(started.status());
      if (noneStarted !== undefined) {
        await started.close();
        throw noneStarted;
      }
      return started;
    };
    return { runner: aroundPool.runner, config, modelString, audit, agents, startServers };
  } catch (error) {
    // Whatever failed after the servers started, they must not outlive it.
    await pool.close();
    throw error;
  }
}

/** The configured servers and the additional ones; a name the config uses keeps the config's server. */
function withAdditionalServers(
  config: LoadedConfig,
  additional: CreateRunnerOptions['additionalServers'],
): LoadedConfig {
  if (additional === undefined) return config;
  const servers = { ...config.servers };
  const warnings = [...config.warnings];
  for (const [name, definition] of Object.entries(additional)) {
    if (name in servers) {
      warnings.push(`server "${name}" is configured already: the configured one is used, not the one given`);
      continue;
    }
    servers[name] = definition;
  }
  return { ...config, servers, warnings };
}

/** Creates a Runner for a model with the tools of every configured MCP server. */
export async function createRunner(options: CreateRunnerOptions = {}): Promise<McpRunner> {
  return (await assembleRunner(options)).runner;
}
