/**
 * What a durable worker runs its jobs with: the jobs' host (src/setup/job-host.ts: the config's
 * shared servers started once, a process of each `isolation: "per-job"` server for every job, a
 * guard of each job's own with the `-p` rules, one pin check) and a provider per model, made on
 * first use from the worker's own environment and config (keys never travel in a job).
 */
import type { JobRuntime } from '../jobs/workers/job-workflow.js';
import type { JobTools } from '../batch/job-tool-host.js';
import { definedProperties } from '../util/defined-properties.js';
import { requireAgent } from './agents.js';
import { startJobHost } from './job-host.js';
import type { CreateRunnerOptions } from './runner-options.js';
import { marksToolOutput, withUntrustedContentClause } from './safety-settings.js';

export interface WorkerRuntime {
  readonly runtime: JobRuntime;
  /** The shared servers and the per-job ones (for the worker's start line). */
  readonly serverNames: readonly string[];
  /** Stops the servers (the jobs' own too) and releases the providers. */
  close(): Promise<void>;
}

type WorkerRuntimeOptions = Pick<
  CreateRunnerOptions,
  'configPath' | 'model' | 'env' | 'homeDir' | 'projectDir' | 'maxSteps' | 'onEvent' | 'telemetry'
>;

export async function assembleWorkerRuntime(options: WorkerRuntimeOptions): Promise<WorkerRuntime> {
  const host = await startJobHost(options, 'worker');
  const { shared, config, perJobNames, safety } = host;
  const { runner } = shared;
  const runtime: JobRuntime = {
    provider: (model) => host.provider(model, 'the job\'s "model"'),
    // Always the guard: with no server it still carries the host's `skill` tool.
    tools: (job): Promise<JobTools> =>
      host.openJob({
        servers: job.servers,
        model: job.model,
        agent: job.agent,
        jobKey: job.key,
        where: '"servers"',
      }),
    agent: (name) => requireAgent(shared.agents, name, '"agent"'),
    systemPrompt: (own) => withUntrustedContentClause(own ?? runner.systemPrompt, safety),
    markToolOutput: marksToolOutput(safety),
    ...definedProperties({
      maxSteps: options.maxSteps ?? config.maxSteps,
      context: config.context,
    }),
    settings: config.generation,
  };
  return {
    runtime,
    serverNames: [
      ...runner.servers.map((server) => server.name),
      ...perJobNames.map((name) => `${name} (per job)`),
    ],
    close: () => host.close(),
  };
}
