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
import type { GenerationSettings, Provider } from '../../core/types.js';
import type { ContextOptions } from '../../context/context-budget.js';
import { messageOf, ProviderError } from '../../core/errors.js';
import type { RunResult } from '../../core/events.js';
import { definedProperties } from '../../util/defined-properties.js';
import type { AgentDefinition } from '../../agents/definition.js';
import type { JobTools } from '../../batch/job-tool-host.js';
import type { JobInput, JobOutput } from './job-input.js';
import { JOB_WORKFLOW_NAME } from './names.js';
import { RecordedProvider } from './recorded-model-call.js';
import { RecordedToolHost } from './recorded-tool-host.js';

/** What a worker lends its jobs: the models (keys from its own environment) and the tools. */
export interface JobRuntime {
  /** The provider for a `provider:model` string (created once per model by the worker). */
  provider(model: string): Promise<Provider>;
  /**
   * A job's tools: the worker's shared servers and a process of each per-job server, narrowed to
   * the job's `servers` when it names some, behind a guard of the job's own (its budgets start
   * fresh). Throws a one-line error naming a server the worker does not have.
   */
  tools(job: {
    readonly servers?: readonly string[] | undefined;
    readonly model: string;
    readonly agent?: AgentDefinition | undefined;
    /** The job's key, on its spans. */
    readonly key: string;
  }): Promise<JobTools>;
  /**
   * The named agent a job's `agent` names, from the worker's config and agent files; throws a
   * one-line ConfigError naming an agent the worker does not have.
   */
  agent(name: string): AgentDefinition;
  /**
   * The system prompt of a job: its own (`system`), else the config's, with the untrusted-content
   * clause the worker's settings ask for (as in a batch).
   */
  systemPrompt(jobSystem: string | undefined): string | undefined;
  /** Whether tool output reaches the model marked as data (the config's `untrustedContent`). */
  readonly markToolOutput: boolean;
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
  let jobTools: JobTools;
  let agent: AgentDefinition | undefined;
  try {
    // `agent` in the line: the job runs as that agent (its model was chosen when it was submitted).
    agent = input.job.agent === undefined ? undefined : runtime.agent(input.job.agent);
    jobTools = await runtime.tools({
      servers: input.job.servers,
      model: input.job.model,
      agent,
      key: input.key,
    });
  } catch (error) {
    const kind = error instanceof Error && error.name !== 'Error' ? error.name : 'ConfigError';
    throw new JobFailedError(kind, messageOf(error));
  }
  let result;
  try {
    result = await runWithTools(input, jobTools, provider, runtime, agent);
  } finally {
    await jobTools.close();
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

async function runWithTools(
  input: JobInput,
  jobTools: JobTools,
  provider: Provider,
  runtime: JobRuntime,
  agent: AgentDefinition | undefined,
): Promise<RunResult> {
  const tools = new RecordedToolHost(jobTools.host, input.key);
  const systemPrompt = runtime.systemPrompt(input.job.system ?? agent?.systemPrompt);
  const runner = new Runner({
    provider,
    ...jobTools.runnerOptions,
    tools,
    ...definedProperties({
      systemPrompt,
      maxSteps: agent?.maxSteps ?? runtime.maxSteps,
      context: runtime.context,
      settings: runtime.settings,
      // Runs inside DBOS's workflow span: the run's spans nest under it, its steps' under the run.
      observer: jobTools.observer,
    }),
    markToolOutput: runtime.markToolOutput,
    // A durable sleep: a replay skips the waits between retries that already happened.
    sleep: (ms) => DBOS.sleepms(ms),
  });
  try {
    // The schema's follow-up answers are model calls like any other: each one a recorded step.
    return await runner.run(
      input.job.prompt,
      definedProperties({ outputSchema: input.job.outputSchema ?? agent?.outputSchema }),
    );
  } catch (error) {
    const kind = error instanceof Error ? error.name : 'Error';
    const retryable = error instanceof ProviderError && error.retryable;
    throw new JobFailedError(kind, `${messageOf(error)}${retryable ? ' (retryable)' : ''}`);
  }
}

/** The registered workflow (the worker runs it; clients enqueue it by {@link JOB_WORKFLOW_NAME}). */
export const jobWorkflow = DBOS.registerWorkflow(runJob, { name: JOB_WORKFLOW_NAME });
