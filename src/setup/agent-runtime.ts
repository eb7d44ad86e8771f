/**
 * What the children of a session are built from: the session's guard (each agent's calls under its
 * name), the providers (made as `-m` makes them, one per model string, closed with the runner), the
 * untrusted-content clause and marking, and the generation settings. Also the tool host of the
 * main run: the guard with the `agent` tool added, or, for `--agent NAME`, that agent's view of it.
 */
import type { LoadedConfig } from '../../config/index.js';
import { AgentToolHost } from '../agents/agent-tool.js';
import { DEFAULT_MAX_PARALLEL_AGENTS, type AgentRun, type AgentRuntime } from '../agents/child-run.js';
import type { AgentDefinition } from '../agents/definition.js';
import { toolFilterOf } from '../agents/tool-filter.js';
import type { Provider, ToolHost } from '../core/types.js';
import type { GuardedToolHost } from '../safety/guarded-tool-host.js';
import type { SafetyOptions } from '../safety/options.js';
import type { ToolLocation } from '../safety/tool-location.js';
import type { RunObserver } from '../core/run-observer.js';
import type { TokenBudget } from '../core/token-budget.js';
import { createModel } from './model-choice.js';
import type { CreateRunnerOptions } from './runner-options.js';
import { marksToolOutput, withUntrustedContentClause } from './safety-settings.js';
import { definedProperties } from '../util/defined-properties.js';

export interface AgentRuntimeContext {
  readonly agents: ReadonlyMap<string, AgentDefinition>;
  readonly guard: GuardedToolHost;
  readonly locate: (exposedName: string) => ToolLocation | undefined;
  readonly options: CreateRunnerOptions;
  readonly config: LoadedConfig;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly safety: SafetyOptions;
  /** The parent's provider now (`/model` may have replaced the first). */
  readonly parentProvider: () => Provider;
  readonly onRun?: (run: AgentRun) => void;
  /** The parent's telemetry listener: a child's run has spans of its own, under the agent call's. */
  readonly observer?: RunObserver;
  /** The session's model tokens (`budgets.maxTokens`): every child's calls count against it. */
  readonly tokenBudget?: TokenBudget;
}

/** The runtime, and the providers it made (closed with the runner). */
export function agentRuntime(context: AgentRuntimeContext): {
  runtime: AgentRuntime;
  closeProviders: () => Promise<void>;
} {
  const { options, config, env, safety } = context;
  const providers = new Map<string, Promise<Provider>>();
  const generation = { ...config.generation, ...options.settings };
  const contextOptions = { ...config.context, ...options.context };
  const runtime: AgentRuntime = {
    agents: context.agents,
    hostFor: (agent) => context.guard.forAgent(agent),
    serverOf: (exposedName) => context.locate(exposedName)?.server,
    modelFor: async (model) => {
      if (model === undefined) {
        const provider = context.parentProvider();
        return { provider, model: `${provider.name}:${provider.model}` };
      }
      let made = providers.get(model);
      if (made === undefined) {
        made = createModel(model, options, config, env, `agent model "${model}"`);
        providers.set(model, made);
        // A failure is the agent's error result; a later call tries again.
        made.catch(() => providers.delete(model));
      }
      return { provider: await made, model };
    },
    childOptions: (definition) => ({
      ...definedProperties({
        systemPrompt: withUntrustedContentClause(definition.systemPrompt, safety),
        observer: context.observer,
        tokenBudget: context.tokenBudget,
      }),
      markToolOutput: marksToolOutput(safety),
      settings: generation,
      // The window of another model is its own: only the share and the switches carry over.
      context: definedProperties({
        compactAt: contextOptions.compactAt,
        autoCompact: contextOptions.autoCompact,
        toolSearch: contextOptions.toolSearch,
        toolSearchAt: contextOptions.toolSearchAt,
      }),
    }),
    maxParallel: options.maxParallelAgents ?? config.maxParallelAgents ?? DEFAULT_MAX_PARALLEL_AGENTS,
    ...definedProperties({ onRun: context.onRun }),
  };
  return {
    runtime,
    closeProviders: async () => {
      const made = await Promise.allSettled([...providers.values()]);
      await Promise.all(
        made.map(async (outcome) => {
          if (outcome.status === 'fulfilled') await outcome.value.close?.();
        }),
      );
    },
  };
}

/**
 * The main run's tool host: the guard, with the agent tool when there are agents; for `--agent
 * NAME`, that agent's tools of the guard (its calls audited under its name) and the agents it may call.
 */
export function mainToolHost(
  runtime: AgentRuntime,
  guard: ToolHost,
  direct: AgentDefinition | undefined,
): ToolHost {
  if (direct === undefined) {
    if (runtime.agents.size === 0) return guard;
    return new AgentToolHost({ inner: guard, runtime, level: { depth: 0, mayCall: 'all' } });
  }
  const filter = toolFilterOf(direct, runtime.serverOf);
  return new AgentToolHost({
    inner: runtime.hostFor(direct.name),
    runtime,
    level: { depth: 0, mayCall: direct.mayCall, agent: direct },
    ...(filter === undefined ? {} : { filter }),
  });
}
