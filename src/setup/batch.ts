/**
 * `runBatch`: many jobs over servers started once. The shared servers start with one
 * {@link assembleRunner} (so they get everything a runner's servers get: roots, sign-in, sandbox,
 * the config's settings); each job then gets a fresh Runner of its own — its own history, its own
 * guard (budgets, approval state, hooks) — over those servers, and a process of its own of every
 * server marked `isolation: "per-job"`. No one is asked anything: approval follows `-p` rules.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfig, parseConfig, type LoadedConfig } from '../../config/index.js';
import type { NumberedJob, BatchJob } from '../batch/job.js';
import type { BatchResult } from '../batch/result.js';
import {
  runJobs,
  toolCallOf,
  type AttemptOutcome,
  type JobProgress,
  type RunJobsOptions,
} from '../batch/run-jobs.js';
import { JobToolHost, ToolSpecInterner } from '../batch/job-tool-host.js';
import { ConfigError } from '../core/errors.js';
import type { RunnerEvent } from '../core/events.js';
import { Runner } from '../core/runner.js';
import type { Provider } from '../core/types.js';
import type { ServerDefinition } from '../mcp/definition.js';
import { assembleSafety } from '../safety/assemble.js';
import type { AuditSink } from '../safety/audit-log.js';
import { mergeSafetyOptions, type SafetyOptions } from '../safety/options.js';
import { optional } from '../util/optional.js';
import { randomUUID } from 'node:crypto';
import { builtinApprovalRules } from './builtin-servers.js';
import { assembleRunner, type Assembly } from './create-runner.js';
import { createModel } from './model-choice.js';
import type { CreateRunnerOptions } from './runner-options.js';
import { hostNotices } from './host-event.js';
import {
  configSafety,
  marksToolOutput,
  toolOutputFolderFor,
  withUntrustedContentClause,
} from './safety-settings.js';

/**
 * The environment variable set, for a per-job server's config, to a folder of the job's own
 * (removed after the job): `"MEMORY_FILE_PATH": "${MCPHOST_JOB_DIR}/memory.jsonl"`.
 */
export const JOB_DIR_VARIABLE = 'MCPHOST_JOB_DIR';

/** Options of {@link runBatch}. */
export interface RunBatchOptions {
  /**
   * How every job's runner is made (model, config, safety…), as for `createRunner`. A job's
   * `model` and `system` override `model` and `systemPrompt`. Question callbacks are not used: a
   * batch asks no one (`ask` rules deny, as with `-p`).
   */
  readonly runner?: Omit<CreateRunnerOptions, 'questions' | 'history' | 'onHistoryChange'>;
  /** Jobs run at once. Default 4. */
  readonly concurrency?: number;
  /** Attempts after the first for a failure that may pass (docs/batch.md). Default 2. */
  readonly retries?: number;
  /** The wait before a job's second attempt, doubled for each further one. Default 2000 ms. */
  readonly retryDelayMs?: number;
  /** Stops the batch: jobs in flight are cancelled and yield no result; servers are closed. */
  readonly signal?: AbortSignal;
  /** Jobs starting and being retried (for a progress display). */
  readonly onProgress?: (progress: JobProgress) => void;
  /** Every event of every job's run, with the job. */
  readonly onJobEvent?: (job: NumberedJob, event: RunnerEvent) => void;
}

/** A job as `runBatch` takes it: numbered (from a file) or a plain job (numbered by its position). */
export type BatchInput = NumberedJob | BatchJob;

/**
 * Runs jobs over servers started once and yields each job's result as it ends. The servers start
 * when iteration begins and are closed when it ends (also when the loop is left early).
 */
export async function* runBatch(
  jobs: Iterable<BatchInput> | AsyncIterable<BatchInput>,
  options: RunBatchOptions = {},
): AsyncGenerator<BatchResult> {
  const batch = await startBatch(options);
  try {
    const results = runJobs(numbered(jobs), {
      runAttempt: (job, _attempt, signal) => batch.runAttempt(job, signal),
      ...optional('concurrency', options.concurrency),
      ...optional('retries', options.retries),
      ...optional('retryDelayMs', options.retryDelayMs),
      ...optional('signal', options.signal),
      ...optional('onProgress', options.onProgress),
    } satisfies RunJobsOptions);
    yield* results;
  } finally {
    await batch.close();
  }
}

interface StartedBatch {
  runAttempt(job: NumberedJob, signal: AbortSignal): Promise<AttemptOutcome>;
  close(): Promise<void>;
}

async function startBatch(options: RunBatchOptions): Promise<StartedBatch> {
  const runnerOptions: CreateRunnerOptions = options.runner ?? {};
  const env = runnerOptions.env ?? process.env;
  const batchDir = await mkdtemp(join(tmpdir(), 'mcphost-batch-'));
  // The shared servers are read with the variable set too, so a config that uses it parses.
  const batchEnv = { ...env, [JOB_DIR_VARIABLE]: batchDir };
  let shared: Assembly;
  let audit: AuditSink | undefined;
  let perJob: boolean;
  try {
    const servers = await configuredServers(runnerOptions, batchEnv);
    perJob = Object.values(servers).some(isPerJob);
    shared = await assembleRunner({
      ...runnerOptions,
      env: batchEnv,
      servers: Object.fromEntries(Object.entries(servers).filter(([, definition]) => !isPerJob(definition))),
    });
  } catch (error) {
    await rm(batchDir, { recursive: true, force: true });
    throw error;
  }
  const { config } = shared;
  const notices = hostNotices(runnerOptions.onEvent);
  const safety: SafetyOptions = mergeSafetyOptions(configSafety(config), runnerOptions.safety ?? {});
  if (safety.auditLog !== undefined) {
    const { openAuditLog } = await import('../safety/audit-log.js');
    audit = await openAuditLog(resolve(safety.auditLog), notices.warning, {
      ...optional('maxBytes', safety.auditLogMaxBytes),
    });
  }
  const providers = new Map<string, Promise<Provider>>([
    [shared.modelString, Promise.resolve(shared.runner.provider)],
  ]);
  const providerFor = (model: string): Promise<Provider> => {
    let provider = providers.get(model);
    if (provider === undefined) {
      provider = createModel(model, runnerOptions, config, env, `a job's "model"`);
      providers.set(model, provider);
      provider.catch(() => undefined);
    }
    return provider;
  };

  const specs = new ToolSpecInterner();
  const runAttempt = async (job: NumberedJob, signal: AbortSignal): Promise<AttemptOutcome> => {
    const events = attemptLedger();
    let jobDir: string | undefined;
    let isolated: Assembly | undefined;
    let guardClose: (() => Promise<void>) | undefined;
    try {
      if (perJob) {
        jobDir = await mkdtemp(join(batchDir, 'job-'));
        const jobEnv = { ...env, [JOB_DIR_VARIABLE]: jobDir };
        const servers = await configuredServers(runnerOptions, jobEnv);
        isolated = await assembleRunner({
          ...runnerOptions,
          model: shared.modelString,
          env: jobEnv,
          servers: Object.fromEntries(
            Object.entries(servers).filter(([, definition]) => isPerJob(definition)),
          ),
          builtin: [],
          // A job whose own servers all failed to start fails (and is tried again), rather than
          // running without the tools it was given them for.
          requireServers: true,
          signal,
        });
      }
      const host = new JobToolHost({
        pools: isolated === undefined ? [shared.runner.pool] : [shared.runner.pool, isolated.runner.pool],
        ...optional('servers', job.job.servers),
        specs,
      });
      const unknown = host.unknownServers();
      if (unknown.length > 0) {
        throw new ConfigError(
          `line ${job.line}: "servers"`,
          `no configured server ${unknown.map((name) => JSON.stringify(name)).join(', ')}`,
        );
      }
      const { guard, runnerOptions: hookOptions } = assembleSafety({
        host,
        safety: {
          ...safety,
          approval: [...builtinApprovalRules(config.servers), ...(safety.approval ?? [])],
          approvalFallback: safety.approvalFallback ?? 'allow',
        },
        locate: (name) => host.locate(name),
        ...optional('audit', audit),
        ...optional('toolOutputFolder', toolOutputFolderFor(runnerOptions, env)),
        hookContext: {
          sessionId: randomUUID(),
          model: job.job.model ?? shared.modelString,
          interactive: false,
          cwd: resolve(runnerOptions.projectDir ?? process.cwd()),
        },
        env,
        ...optional('onFlagged', notices.contentFlagged),
        ...optional('onWarning', notices.warning),
      });
      guardClose = () => guard.close();
      const systemPrompt = withUntrustedContentClause(job.job.system ?? shared.runner.systemPrompt, safety);
      const maxSteps = runnerOptions.maxSteps ?? config.maxSteps;
      const runner = new Runner({
        provider: await providerFor(job.job.model ?? shared.modelString),
        tools: guard,
        ...hookOptions,
        settings: { ...config.generation, ...runnerOptions.settings },
        markToolOutput: marksToolOutput(safety),
        ...optional('systemPrompt', systemPrompt),
        ...optional('maxSteps', maxSteps),
        context: { ...config.context, ...runnerOptions.context },
      });
      const result = await runner.run(job.job.prompt, {
        signal,
        onEvent: (event) => {
          events.see(event);
          options.onJobEvent?.(job, event);
        },
        ...optional('outputSchema', job.job.outputSchema),
      });
      return { kind: 'completed', result };
    } catch (error) {
      return { kind: 'failed', error, usage: events.usage, toolCalls: events.toolCalls };
    } finally {
      await guardClose?.();
      await isolated?.runner.close();
      if (jobDir !== undefined) await rm(jobDir, { recursive: true, force: true });
    }
  };

  return {
    runAttempt,
    async close() {
      await shared.runner.close();
      const created = [...providers.entries()].filter(([model]) => model !== shared.modelString);
      await Promise.allSettled(created.map(async ([, provider]) => (await provider).close?.()));
      await audit?.flush();
      await rm(batchDir, { recursive: true, force: true });
    },
  };
}

function isPerJob(definition: ServerDefinition): boolean {
  return definition.isolation === 'per-job';
}

/** The servers a runner of these options would start, read with `env` (the job's folder in it). */
async function configuredServers(
  options: CreateRunnerOptions,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Readonly<Record<string, ServerDefinition>>> {
  if (options.servers !== undefined) return options.servers;
  if (options.mcpServers !== undefined) {
    return parseConfig({ mcpServers: options.mcpServers }, 'mcpServers option', env).servers;
  }
  const loaded: LoadedConfig = await loadConfig({
    ...optional('configPath', options.configPath),
    homeDir: options.homeDir ?? (await import('node:os')).homedir(),
    env,
    projectDir: resolve(options.projectDir ?? process.cwd()),
    ...optional('trustProject', options.trustProject),
  });
  return loaded.servers;
}

/** Usage and tool calls of an attempt, from its events, for when it fails before its result. */
function attemptLedger() {
  const usage = { inputTokens: 0, outputTokens: 0 };
  const toolCalls: ReturnType<typeof toolCallOf>[] = [];
  return {
    usage,
    toolCalls,
    see(event: RunnerEvent): void {
      if (event.type === 'step-finish' && event.usage !== undefined) {
        usage.inputTokens += event.usage.inputTokens;
        usage.outputTokens += event.usage.outputTokens;
      } else if (event.type === 'tool-result') {
        toolCalls.push(toolCallOf(event.record));
      }
    },
  };
}

/** Jobs numbered by their position when they come without a line (handed over as objects). */
async function* numbered(
  jobs: Iterable<BatchInput> | AsyncIterable<BatchInput>,
): AsyncGenerator<NumberedJob> {
  const { jobKey } = await import('../batch/job.js');
  let position = 0;
  for await (const input of jobs) {
    position += 1;
    if ('job' in input && 'key' in input) yield input;
    else yield { line: position, key: jobKey(input, position), job: input };
  }
}
