/**
 * `runBatch`: many jobs over servers started once (src/setup/job-host.ts): each job gets a fresh
 * Runner of its own — its own history, its own guard (budgets, approval state, hooks) — over the
 * shared servers, and a process of its own of every server marked `isolation: "per-job"`. No one
 * is asked anything: approval follows `-p` rules.
 */
import type { NumberedJob, BatchJob } from '../batch/job.js';
import type { BatchResult } from '../batch/result.js';
import {
  runJobs,
  toolCallOf,
  type AttemptOutcome,
  type JobProgress,
  type RunJobsOptions,
} from '../batch/run-jobs.js';
import type { RunnerEvent } from '../core/events.js';
import { Runner } from '../core/runner.js';
import { definedProperties } from '../util/defined-properties.js';
import type { JobTools } from '../batch/job-tool-host.js';
import { requireAgent } from './agents.js';
import { startJobHost, type JobHostOptions } from './job-host.js';
import { telemetryRegistered } from '../telemetry/registered.js';
import type { BatchJobSpans } from '../telemetry/job-trace.js';
import { marksToolOutput, withUntrustedContentClause } from './safety-settings.js';

export { JOB_DIR_VARIABLE } from './job-host.js';

/** Options of {@link runBatch}. */
export interface RunBatchOptions {
  /**
   * How every job's runner is made (model, config, safety…), as for `createRunner`. A job's
   * `model` and `system` override `model` and `systemPrompt`. Question callbacks are not used: a
   * batch asks no one (`ask` rules deny, as with `-p`).
   */
  readonly runner?: JobHostOptions;
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
      onProgress: (progress) => {
        // A job's trace ends with the job (after its last attempt), or with the batch's stop.
        if (progress.type === 'job-end') batch.spans?.jobEnded(progress.job.key, progress.stopped);
        options.onProgress?.(progress);
      },
      ...definedProperties({
        concurrency: options.concurrency,
        retries: options.retries,
        retryDelayMs: options.retryDelayMs,
        signal: options.signal,
      }),
    } satisfies RunJobsOptions);
    yield* results;
  } finally {
    batch.spans?.endAll();
    await batch.close();
  }
}

interface StartedBatch {
  /** One trace per job, when a tracer provider is registered (src/telemetry/job-trace.ts). */
  readonly spans: BatchJobSpans | undefined;
  runAttempt(job: NumberedJob, signal: AbortSignal): Promise<AttemptOutcome>;
  close(): Promise<void>;
}

async function startBatch(options: RunBatchOptions): Promise<StartedBatch> {
  const runnerOptions: JobHostOptions = options.runner ?? {};
  const host = await startJobHost(runnerOptions, 'batch');
  const { shared, config, safety } = host;
  const spans = telemetryRegistered()
    ? new (await import('../telemetry/job-trace.js')).BatchJobSpans(runnerOptions.env ?? process.env)
    : undefined;

  const attempt = async (job: NumberedJob, signal: AbortSignal): Promise<AttemptOutcome> => {
    const events = attemptLedger();
    let tools: JobTools | undefined;
    try {
      // `agent` in the line: the job runs as that agent, the line's own fields above its entry's.
      const agent =
        job.job.agent === undefined
          ? undefined
          : requireAgent(shared.agents, job.job.agent, `line ${job.line}: "agent"`);
      const model = job.job.model ?? agent?.model ?? shared.modelString;
      tools = await host.openJob({
        model,
        where: `line ${job.line}: "servers"`,
        signal,
        jobKey: job.key,
        ...definedProperties({ servers: job.job.servers, agent }),
      });
      const systemPrompt = withUntrustedContentClause(
        job.job.system ?? agent?.systemPrompt ?? shared.runner.systemPrompt,
        safety,
      );
      const runner = new Runner({
        provider: await host.provider(
          model,
          job.job.model === undefined && agent?.model !== undefined
            ? `agent ${agent.name}: model`
            : `a job's "model"`,
        ),
        tools: tools.host,
        ...tools.runnerOptions,
        settings: { ...config.generation, ...runnerOptions.settings },
        markToolOutput: marksToolOutput(safety),
        ...definedProperties({
          systemPrompt,
          maxSteps: agent?.maxSteps ?? runnerOptions.maxSteps ?? config.maxSteps,
          observer: tools.observer,
        }),
        context: { ...config.context, ...runnerOptions.context },
      });
      const result = await runner.run(job.job.prompt, {
        signal,
        onEvent: (event) => {
          events.see(event);
          options.onJobEvent?.(job, event);
        },
        ...definedProperties({ outputSchema: job.job.outputSchema ?? agent?.outputSchema }),
      });
      return { kind: 'completed', result };
    } catch (error) {
      return { kind: 'failed', error, usage: events.usage, toolCalls: events.toolCalls };
    } finally {
      await tools?.close();
    }
  };

  const runAttempt = (job: NumberedJob, signal: AbortSignal): Promise<AttemptOutcome> =>
    spans === undefined
      ? attempt(job, signal)
      : spans.withinAttempt(job, async () => {
          const outcome = await attempt(job, signal);
          spans.attemptEnded(job.key, outcome.kind === 'failed' ? outcome.error : undefined);
          return outcome;
        });

  return { spans, runAttempt, close: () => host.close() };
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
