/**
 * The job workflow: one Runner per job over a recorded provider and tool host, so each model call
 * and each tool call is a DBOS step. The Runner does not know it is durable; replayed after a crash,
 * its loop gets the recorded steps' outputs back and goes on from the first step not recorded.
 *
 * DBOS finds workflows by their registered name, so the registration happens when this module is
 * imported, before `DBOS.launch`; the worker sets the runtime (models and tools) before launching.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { Runner } from '../../core/runner.js';
import type { GenerationSettings, Provider, ToolHost } from '../../core/types.js';
import type { ContextOptions } from '../../context/context-budget.js';
import { messageOf, ProviderError } from '../../core/errors.js';
import type { JobInput, JobOutput } from './job-input.js';
import { JOB_WORKFLOW_NAME } from './names.js';
import { RecordedProvider } from './recorded-model-call.js';
import { RecordedToolHost } from './recorded-tool-host.js';

/** What a worker lends its jobs: the models (keys from its own environment) and the tools. */
export interface JobRuntime {
  /** The provider for a `provider:model` string (created once per model by the worker). */
  provider(model: string): Promise<Provider>;
  /**
   * The worker's MCP servers behind its safety guard, narrowed to a job's `servers` when it names
   * some; `undefined`: no tools. Throws a one-line error naming a server the worker does not have.
   */
  tools(servers: readonly string[] | undefined): ToolHost | undefined;
  /** The config's system prompt, for jobs without one of their own. */
  readonly systemPrompt?: string;
  /** Model calls per job. */
  readonly maxSteps?: number;
  /** The config's window and compaction settings. */
  readonly context?: ContextOptions;
  /** The config's sampling settings. */
  readonly settings?: GenerationSettings;
}

let runtime: JobRuntime | undefined;

/** Sets what the jobs of this process run with; call before `DBOS.launch`. */
export function setJobRuntime(next: JobRuntime): void {
  runtime = next;
}

/** A failed job: the workflow ends in DBOS's ERROR status with this message (`jobs results`). */
export class JobFailedError extends Error {
  constructor(kind: string, message: string) {
    super(`${kind}: ${message}`);
    this.name = 'JobFailedError';
  }
}

async function runJob(input: JobInput): Promise<JobOutput> {
  if (runtime === undefined) throw new Error('job workflow started before the worker set its runtime');
  // Recorded, so a job resumed after a crash reports its whole time, not the time since the restart.
  const startedAt = await DBOS.now();
  const provider = new RecordedProvider(await runtime.provider(input.job.model));
  let host;
  try {
    host = runtime.tools(input.job.servers);
  } catch (error) {
    throw new JobFailedError('ConfigError', messageOf(error));
  }
  const tools = host === undefined ? undefined : new RecordedToolHost(host, input.key);
  const systemPrompt = input.job.system ?? runtime.systemPrompt;
  const runner = new Runner({
    provider,
    ...(tools === undefined ? {} : { tools }),
    ...(systemPrompt === undefined ? {} : { systemPrompt }),
    ...(runtime.maxSteps === undefined ? {} : { maxSteps: runtime.maxSteps }),
    ...(runtime.context === undefined ? {} : { context: runtime.context }),
    ...(runtime.settings === undefined ? {} : { settings: runtime.settings }),
    markToolOutput: true,
    // A durable sleep: a replay skips the waits between retries that already happened.
    sleep: (ms) => DBOS.sleepms(ms),
  });
  let result;
  try {
    // The schema's follow-up answers are model calls like any other: each one a recorded step.
    const { outputSchema } = input.job;
    result = await runner.run(input.job.prompt, outputSchema === undefined ? {} : { outputSchema });
  } catch (error) {
    const kind = error instanceof Error ? error.name : 'Error';
    const retryable = error instanceof ProviderError && error.retryable;
    throw new JobFailedError(kind, `${messageOf(error)}${retryable ? ' (retryable)' : ''}`);
  }
  const endedAt = await DBOS.now();
  return {
    key: input.key,
    ...(input.job.id === undefined ? {} : { id: input.job.id }),
    ...(input.line === undefined ? {} : { line: input.line }),
    status: 'ok',
    answer: result.text,
    ...(result.structured === undefined ? {} : { structured: result.structured }),
    toolCalls: result.toolCalls.map((record) => ({
      name: record.call.name,
      isError: record.result.isError,
      durationMs: record.durationMs,
    })),
    usage: result.usage,
    durationMs: endedAt - startedAt,
    attempts: 1,
  };
}

/** The registered workflow (the worker runs it; clients enqueue it by {@link JOB_WORKFLOW_NAME}). */
export const jobWorkflow = DBOS.registerWorkflow(runJob, { name: JOB_WORKFLOW_NAME });
