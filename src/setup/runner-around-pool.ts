/**
 * The part of createRunner that runs once the servers are up: the guard around the pool (and the
 * host's `skill` tool), and the runner around the guard. Its modules load while the servers start.
 */
import type { LoadedConfig } from '../../config/index.js';
import type { AppHost } from '../apps/app-host.js';
import { packageVersion } from '../util/version.js';
import type { QuestionQueue } from '../core/questions.js';
import type { Provider } from '../core/types.js';
import { noServerStarted, type McpPool } from '../mcp/pool.js';
import type { OfferingsChanges } from '../mcp/offerings-changes.js';
import type { SamplingHost } from '../mcp/sampling.js';
import type { ServerLogBook } from '../mcp/server-logs.js';
import type { ServerRoots } from '../mcp/server-roots.js';
import type { assembleSafety } from '../safety/assemble.js';
import type { AuditSink } from '../safety/audit-log.js';
import type { GuardedToolHost } from '../safety/guarded-tool-host.js';
import type { SafetyOptions } from '../safety/options.js';
import { builtinApprovalRules } from './builtin-servers.js';
import type { HostNotices } from './host-event.js';
import type { McpRunner } from './mcp-runner.js';
import type { CreateRunnerOptions } from './runner-options.js';
import { contentScreenFor, marksToolOutput, serverIdentity, toolOutputFolderFor } from './safety-settings.js';
import { skillsFor } from './skills.js';
import { withResourceTools } from './resource-tools.js';
import { definedProperties } from '../util/defined-properties.js';
import type { AgentDefinition } from '../agents/definition.js';
import { AgentRunBook } from '../agents/run-book.js';
import { agentRuntime, mainToolHost } from './agent-runtime.js';
import type { Telemetry } from '../telemetry/run-telemetry.js';

/** The modules that build the runner around the pool. */
export interface AssemblyParts {
  readonly assembleSafety: typeof assembleSafety;
  readonly McpRunner: typeof McpRunner;
  /** MCP Apps' host, loaded only when apps are on. */
  readonly AppHost?: typeof AppHost;
}

export async function loadAssemblyParts(withApps = false): Promise<AssemblyParts> {
  const [safety, runner, apps] = await Promise.all([
    import('../safety/assemble.js'),
    import('./mcp-runner.js'),
    withApps ? import('../apps/app-host.js') : undefined,
  ]);
  return {
    assembleSafety: safety.assembleSafety,
    McpRunner: runner.McpRunner,
    ...definedProperties({ AppHost: apps?.AppHost }),
  };
}

/** What {@link assembleAroundPool} is given: everything createRunner made before the servers were up. */
export interface AroundPoolContext {
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
  /** Made before the servers start: hooks, audit lines and sampling requests carry it. */
  readonly sessionId: string;
  /** The named agents (src/agents). */
  readonly agents: ReadonlyMap<string, AgentDefinition>;
  /** The agent this runner runs as (`--agent NAME`). */
  readonly direct?: AgentDefinition;
  /** The OpenTelemetry listener, when the program registered a provider (setup/telemetry.ts). */
  readonly telemetry?: Telemetry;
}

/** The runner, and what sampling runs on and under (see serverFeatures' `samplingHost`). */
export interface RunnerAroundPool {
  readonly runner: McpRunner;
  readonly sampling: SamplingHost;
}

/** The part of createRunner that runs once the servers are up (and may still throw). */
export function assembleAroundPool(
  pool: McpPool,
  { assembleSafety, McpRunner, AppHost }: AssemblyParts,
  context: AroundPoolContext,
): RunnerAroundPool {
  const { options, notices, config, env } = context;
  const { audit, safety: settings, sessionId } = context;
  const noneStarted = options.requireServers === true ? noServerStarted(pool.status()) : undefined;
  if (noneStarted !== undefined) throw noneStarted;
  const maxSteps = options.maxSteps ?? context.direct?.maxSteps ?? config.maxSteps;
  const onApproval = options.questions?.approveToolCall;
  const skills = skillsFor({ pool, config, homeDir: options.homeDir, env, onWarning: notices.warning });
  // The pool, and the host's `skill` and resource tools, all under the same guard.
  const tools = withResourceTools(skills, pool, context.offeringsChanges);
  // MCP Apps: a call the guard lets through to a tool with an interface opens its app; an app's
  // own calls come back through the same guard (src/apps).
  const guardOfApps: { current?: GuardedToolHost } = {};
  const apps =
    AppHost === undefined || options.apps === undefined
      ? undefined
      : new AppHost({
          pool,
          guard: () => guardOfApps.current,
          hostInfo: { name: 'mcphost', version: packageVersion() },
          ...options.apps,
        });
  const safety = assembleSafety({
    host: apps === undefined ? tools.host : apps.observe(tools.host),
    // A built-in server that asks by default (bash) adds its rule set; the strictest set wins.
    safety: {
      ...settings,
      approval: [...builtinApprovalRules(config.servers), ...(settings.approval ?? [])],
      // Where someone can be asked (the chat, a library with a callback), a tool that does not say
      // it is read-only is asked about; where no one can (-p, workers), calls run as before.
      approvalFallback:
        settings.approvalFallback ?? (onApproval === undefined ? 'allow' : 'ask-unless-read-only'),
    },
    locate: (name) => tools.locate(name),
    identify: (server) => serverIdentity(pool, config.servers[server], server),
    ...definedProperties({
      audit,
      toolOutputFolder: toolOutputFolderFor(options, env),
      questions: options.questions,
      onFlagged: notices.contentFlagged,
    }),
    hookContext: {
      sessionId,
      model: context.modelString,
      interactive: options.interactive ?? false,
      cwd: context.projectDir,
    },
    env,
    ...definedProperties({
      onWarning: notices.warning,
      onToolChange: notices.toolChange,
      traceEnvironment: context.telemetry?.traceEnvironment,
      activities: context.telemetry?.guardActivities,
    }),
    questionQueue: context.questionQueue,
  });
  const guard: GuardedToolHost = safety.guard;
  guardOfApps.current = guard;
  const agentRuns = new AgentRunBook();
  agentRuns.reset(options.agentRuns);
  const agents = agentRuntime({
    agents: context.agents,
    guard,
    locate: (name) => skills.locate(name),
    options,
    config,
    env,
    safety: settings,
    parentProvider: () => runner.provider,
    ...definedProperties({
      observer: context.telemetry?.observer,
      tokenBudget: safety.runnerOptions.tokenBudget,
    }),
    onRun: (run) => {
      agentRuns.add(run);
      options.onAgentRun?.(run);
    },
  });
  const runner = new McpRunner({
    agentRuns,
    provider: context.provider,
    pool,
    skills: skills.library,
    serverLogs: context.serverLogs,
    roots: context.roots,
    offeringsChanges: context.offeringsChanges,
    tools: mainToolHost(agents.runtime, guard, context.direct),
    screenResumed: (call, result) => guard.screenResumed(call, result),
    onClose: async () => {
      // Together: calls in flight end when the pool closes, and the guard waits for their audit lines.
      // The provider in use (`/model` may have replaced the first) releases an embedded model's memory.
      // The apps are torn down first: their frames are told while their server still answers.
      await apps?.close();
      await Promise.all([pool.close(), guard.close(), runner.provider.close?.(), agents.closeProviders()]);
    },
    ...safety.runnerOptions,
    settings: { ...config.generation, ...options.settings },
    markToolOutput: marksToolOutput(settings),
    // `@server:uri` and `/server:prompt` content passes the same screen and marking as tool results.
    offerings: {
      screen: contentScreenFor(settings, context.questionQueue, options.questions, notices.contentFlagged),
      markAsData: marksToolOutput(settings),
    },
    ...definedProperties({ systemPrompt: context.systemPrompt, apps }),
    // Saved sessions keep the user's own prompt; the clause follows the settings of each run.
    userSystemPrompt: context.userSystemPrompt,
    ...definedProperties({
      maxSteps,
      toolCalling: options.toolCalling ?? config.toolCalling,
      outputSchema: options.outputSchema ?? context.direct?.outputSchema,
      history: options.history,
      onHistoryChange: options.onHistoryChange,
    }),
    context: { ...config.context, ...options.context },
    ...definedProperties({ observer: context.telemetry?.observer }),
  });
  const sampling: SamplingHost = {
    // The runner's current provider: `/model` may replace the first.
    provider: () => runner.provider,
    turn: () => guard.turn,
    decide: (server) => guard.decideSampling(server),
    admit: (server) => guard.admitSampling(server),
    ...definedProperties({ audit }),
    sessionId,
  };
  return { runner, sampling };
}
