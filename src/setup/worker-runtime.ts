/**
 * What a durable worker runs its jobs with: the config's shared servers started once, a process of
 * each `isolation: "per-job"` server for every job (with a fresh `MCPHOST_JOB_DIR`, as in a
 * batch), and a guard of each job's own over them (the `-p` rules: no one to ask, so a call a rule
 * marks `ask` is denied; budgets counted per job, not over the worker). A provider per model is
 * made on first use from the worker's own environment and config (keys never travel in a job).
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfig } from '../../config/index.js';
import type { JobRuntime, JobTools } from '../jobs/workers/job-workflow.js';
import type { Provider } from '../core/types.js';
import type { ServerDefinition } from '../mcp/definition.js';
import { JobToolHost } from '../batch/job-tool-host.js';
import { assembleSafety } from '../safety/assemble.js';
import type { AuditSink } from '../safety/audit-log.js';
import { ConfigError } from '../core/errors.js';
import { optional } from '../util/optional.js';
import { JOB_DIR_VARIABLE } from './batch.js';
import { builtinApprovalRules } from './builtin-servers.js';
import { assembleRunner, createModel, type Assembly } from './create-runner.js';
import { hostNotices } from './host-event.js';
import type { CreateRunnerOptions } from './runner-options.js';
import { configSafety, toolOutputFolderFor } from './safety-settings.js';

export interface WorkerRuntime {
  readonly runtime: JobRuntime;
  /** The shared servers and the per-job ones (for the worker's start line). */
  readonly serverNames: readonly string[];
  /** Stops the servers (the jobs' own too) and releases the providers. */
  close(): Promise<void>;
}

type WorkerRuntimeOptions = Pick<
  CreateRunnerOptions,
  'configPath' | 'model' | 'env' | 'homeDir' | 'projectDir' | 'maxSteps' | 'onEvent'
>;

export async function assembleWorkerRuntime(options: WorkerRuntimeOptions): Promise<WorkerRuntime> {
  const env = options.env ?? process.env;
  const workerDir = await mkdtemp(join(tmpdir(), 'mcphost-worker-'));
  // The shared servers are read with the variable set too, so a config that uses it parses.
  const workerEnv = { ...env, [JOB_DIR_VARIABLE]: workerDir };
  let shared: Assembly;
  let perJobNames: string[];
  try {
    const servers = await configuredServers(options, workerEnv);
    perJobNames = Object.keys(servers).filter((name) => isPerJob(servers[name]));
    shared = await assembleRunner({
      ...options,
      env: workerEnv,
      interactive: false,
      servers: Object.fromEntries(Object.entries(servers).filter(([, definition]) => !isPerJob(definition))),
    });
  } catch (error) {
    await rm(workerDir, { recursive: true, force: true });
    throw error;
  }
  const { runner, config } = shared;
  const notices = hostNotices(options.onEvent);
  const safety = configSafety(config);
  let audit: AuditSink | undefined;
  if (safety.auditLog !== undefined) {
    const { openAuditLog } = await import('../safety/audit-log.js');
    audit = await openAuditLog(resolve(safety.auditLog), notices.warning, {
      ...optional('maxBytes', safety.auditLogMaxBytes),
    });
  }
  const providers = new Map<string, Promise<Provider>>([
    [shared.modelString, Promise.resolve(runner.provider)],
  ]);
  // The jobs running now: their own servers are stopped with the worker if a job never ends.
  const open = new Set<JobTools>();
  const anyServers = runner.servers.length > 0 || perJobNames.length > 0;

  const openJob = async (job: Parameters<JobRuntime['tools']>[0]): Promise<JobTools> => {
    let jobDir: string | undefined;
    let isolated: Assembly | undefined;
    const release = async (): Promise<void> => {
      await isolated?.runner.close();
      if (jobDir !== undefined) await rm(jobDir, { recursive: true, force: true });
    };
    try {
      // Only a job that may call a per-job server pays for starting one.
      const wantsPerJob = job.servers?.some((name) => perJobNames.includes(name)) ?? true;
      if (perJobNames.length > 0 && wantsPerJob) {
        jobDir = await mkdtemp(join(workerDir, 'job-'));
        const jobEnv = { ...env, [JOB_DIR_VARIABLE]: jobDir };
        const servers = await configuredServers(options, jobEnv);
        isolated = await assembleRunner({
          ...options,
          model: shared.modelString,
          env: jobEnv,
          interactive: false,
          servers: Object.fromEntries(
            Object.entries(servers).filter(([, definition]) => isPerJob(definition)),
          ),
          builtin: [],
          // A job whose own servers all failed to start fails, rather than running without them.
          requireServers: true,
        });
      }
      const host = new JobToolHost({
        pools: isolated === undefined ? [runner.pool] : [runner.pool, isolated.runner.pool],
        ...optional('servers', job.servers),
      });
      const unknown = host.unknownServers();
      if (unknown.length > 0) {
        throw new ConfigError(
          '"servers"',
          `no server ${unknown.map((name) => JSON.stringify(name)).join(', ')} in this worker's config`,
        );
      }
      // A guard of the job's own: its budgets, approval state and hooks start fresh with each job.
      const { guard, runnerOptions } = assembleSafety({
        host,
        safety: {
          ...safety,
          approval: [...builtinApprovalRules(config.servers), ...(safety.approval ?? [])],
          approvalFallback: safety.approvalFallback ?? 'allow',
        },
        locate: (name) => host.locate(name),
        ...optional('audit', audit),
        ...optional('toolOutputFolder', toolOutputFolderFor(options, env)),
        hookContext: {
          sessionId: randomUUID(),
          model: job.model,
          interactive: false,
          cwd: resolve(options.projectDir ?? process.cwd()),
        },
        env,
        ...optional('onFlagged', notices.contentFlagged),
        ...optional('onWarning', notices.warning),
      });
      const tools: JobTools = {
        host: anyServers ? guard : undefined,
        runnerOptions,
        close: async () => {
          open.delete(tools);
          await guard.close();
          await release();
        },
      };
      open.add(tools);
      return tools;
    } catch (error) {
      await release();
      throw error;
    }
  };

  const runtime: JobRuntime = {
    provider: (model) => {
      let provider = providers.get(model);
      if (provider === undefined) {
        provider = createModel(
          model,
          {
            ...optional('onEvent', options.onEvent),
            ...optional('homeDir', options.homeDir),
            ...optional('projectDir', options.projectDir),
          },
          config,
          env,
          'the job\'s "model"',
        );
        providers.set(model, provider);
      }
      return provider;
    },
    tools: openJob,
    ...optional('systemPrompt', runner.systemPrompt),
    ...optional('maxSteps', options.maxSteps ?? config.maxSteps),
    ...optional('context', config.context),
    settings: config.generation,
  };
  return {
    runtime,
    serverNames: [
      ...runner.servers.map((server) => server.name),
      ...perJobNames.map((name) => `${name} (per job)`),
    ],
    async close(): Promise<void> {
      await Promise.allSettled([...open].map((tools) => tools.close()));
      const made = await Promise.allSettled([...providers.values()]);
      await runner.close();
      for (const outcome of made) {
        if (outcome.status === 'fulfilled' && outcome.value !== runner.provider)
          await outcome.value.close?.();
      }
      await audit?.flush();
      await rm(workerDir, { recursive: true, force: true });
    },
  };
}

function isPerJob(definition: ServerDefinition | undefined): boolean {
  return definition?.isolation === 'per-job';
}

/** The config's servers, read with `env` (a job's folder in it). */
async function configuredServers(
  options: WorkerRuntimeOptions,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Readonly<Record<string, ServerDefinition>>> {
  const loaded = await loadConfig({
    ...optional('configPath', options.configPath),
    homeDir: options.homeDir ?? homedir(),
    env,
    projectDir: resolve(options.projectDir ?? process.cwd()),
  });
  return loaded.servers;
}
