/**
 * What a durable worker runs its jobs with: the config's servers started once (behind the safety
 * guard, with the `-p` rules: no one to ask, so a call a rule marks `ask` is denied) and a provider
 * per model, made on first use from the worker's own environment and config (keys never travel in
 * a job).
 */
import type { JobRuntime } from '../jobs/workers/job-workflow.js';
import type { Provider } from '../core/types.js';
import { JobToolHost } from '../batch/job-tool-host.js';
import { assembleRunner, createModel } from './create-runner.js';
import type { CreateRunnerOptions } from './runner-options.js';

export interface WorkerRuntime {
  readonly runtime: JobRuntime;
  /** The servers the jobs' tools come from, with their state (for the worker's start line). */
  readonly serverNames: readonly string[];
  /** Stops the servers and releases the providers. */
  close(): Promise<void>;
}

export async function assembleWorkerRuntime(
  options: Pick<
    CreateRunnerOptions,
    'configPath' | 'model' | 'env' | 'homeDir' | 'projectDir' | 'maxSteps' | 'onEvent'
  >,
): Promise<WorkerRuntime> {
  const env = options.env ?? process.env;
  const assembly = await assembleRunner({ ...options, interactive: false });
  const { runner, config } = assembly;
  const providers = new Map<string, Promise<Provider>>([
    [assembly.modelString, Promise.resolve(runner.provider)],
  ]);
  const runtime: JobRuntime = {
    provider: (model) => {
      let provider = providers.get(model);
      if (provider === undefined) {
        provider = createModel(
          model,
          {
            ...(options.onEvent === undefined ? {} : { onEvent: options.onEvent }),
            ...(options.homeDir === undefined ? {} : { homeDir: options.homeDir }),
            ...(options.projectDir === undefined ? {} : { projectDir: options.projectDir }),
          },
          config,
          env,
          'the job\'s "model"',
        );
        providers.set(model, provider);
      }
      return provider;
    },
    tools: (servers) => {
      const guard = runner.tools;
      if (servers === undefined || guard === undefined) return guard;
      // The guard's tools, seen through the pool's table of which server offers which tool.
      const host = new JobToolHost({
        pools: [
          {
            tools: () => guard.tools(),
            call: (call, signal) => guard.call(call, signal),
            locate: (name) => runner.pool.locate(name),
            serverNames: () => runner.pool.serverNames(),
          },
        ],
        servers,
      });
      const unknown = host.unknownServers();
      if (unknown.length > 0) {
        throw new Error(
          `"servers": no server ${unknown.map((name) => JSON.stringify(name)).join(', ')} in this worker's config`,
        );
      }
      return host;
    },
    ...(runner.systemPrompt === undefined ? {} : { systemPrompt: runner.systemPrompt }),
    ...(options.maxSteps === undefined ? {} : { maxSteps: options.maxSteps }),
    ...(config.context === undefined ? {} : { context: config.context }),
    settings: config.generation,
  };
  return {
    runtime,
    serverNames: runner.servers.map((server) => server.name),
    async close(): Promise<void> {
      const made = await Promise.allSettled([...providers.values()]);
      await runner.close();
      for (const outcome of made) {
        if (outcome.status === 'fulfilled' && outcome.value !== runner.provider)
          await outcome.value.close?.();
      }
    },
  };
}
