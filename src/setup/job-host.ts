/**
 * What the jobs of many run over, for `runBatch` (src/setup/batch.ts) and the durable worker
 * (src/setup/worker-runtime.ts) alike:
 *
 * - the config's shared servers, started once with one {@link assembleRunner} (so they get
 *   everything a runner's servers get: roots, sign-in, sandbox, the config's settings);
 * - a process of each `isolation: "per-job"` server for each job that may call it, with a fresh
 *   `MCPHOST_JOB_DIR` (removed after the job);
 * - a guard of each job's own: budgets, approval state and hooks start fresh with each job, and no
 *   one is asked anything (`-p` rules: a call a rule marks `ask` is denied);
 * - one check of tool definitions against their pins, shared by every job: the shared servers'
 *   definitions are one session's, a definition `toolChanges: block` withholds stays withheld for
 *   the rest of the run, and the pin file is read when a definition is new, not once a job;
 * - the host's `skill` tool, over the user's skills, a trusted project's and the shared servers';
 * - a provider per model, made on first use from this process's environment and config.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfig, parseConfig, type LoadedConfig } from '../../config/index.js';
import type { AgentDefinition } from '../agents/definition.js';
import { narrowedToolHost, toolFilterOf } from '../agents/tool-filter.js';
import { JobToolHost, type JobTools } from '../batch/job-tool-host.js';
import { ConfigError } from '../core/errors.js';
import { QuestionQueue } from '../core/questions.js';
import type { Provider } from '../core/types.js';
import type { ServerDefinition } from '../mcp/definition.js';
import { assembleSafety } from '../safety/assemble.js';
import type { ServerIdentity } from '../safety/audit-log.js';
import type { McpPool } from '../mcp/pool.js';
import { mergeSafetyOptions, type SafetyOptions } from '../safety/options.js';
import { ToolPinCheck } from '../safety/tool-pin-check.js';
import { definedProperties } from '../util/defined-properties.js';
import { builtinApprovalRules } from './builtin-servers.js';
import { assembleRunner, type Assembly } from './create-runner.js';
import { hostNotices } from './host-event.js';
import { createModel } from './model-choice.js';
import { jobTelemetry } from './job-telemetry.js';
import { skillsFor, withSkillTool } from './skills.js';
import type { CreateRunnerOptions } from './runner-options.js';
import { configSafety, serverIdentity, toolOutputFolderFor, withToolPins } from './safety-settings.js';

/**
 * The environment variable set, for a per-job server's config, to a folder of the job's own
 * (removed after the job): `"MEMORY_FILE_PATH": "${MCPHOST_JOB_DIR}/memory.jsonl"`.
 */
export const JOB_DIR_VARIABLE = 'MCPHOST_JOB_DIR';

/** How the shared servers, the jobs' servers and the providers are made. */
export type JobHostOptions = Omit<CreateRunnerOptions, 'questions' | 'history' | 'onHistoryChange'>;

/** What a job asks tools for. */
export interface JobToolsRequest {
  /** The servers the job may use (all, when absent). */
  readonly servers?: readonly string[] | undefined;
  /** The model the job runs on (its hooks are told). */
  readonly model: string;
  /** Where the job's `servers` come from, for the error that names an unknown one. */
  readonly where: string;
  readonly signal?: AbortSignal;
  /**
   * The named agent the job runs as (`agent` in its line): it is offered only the agent's tools,
   * and its calls are audited under the agent's name.
   */
  readonly agent?: AgentDefinition | undefined;
  /** The job's key, on its spans (`mcphost.job.id`). */
  readonly jobKey?: string;
}

export interface JobHost {
  /** The shared servers, the config, and the runner the first model came with. */
  readonly shared: Assembly;
  readonly config: LoadedConfig;
  /** The settings every job's guard is made from. */
  readonly safety: SafetyOptions;
  /** The servers started per job. */
  readonly perJobNames: readonly string[];
  /** The provider of a model, made once (`what` names where the model came from, for errors). */
  provider(model: string, what: string): Promise<Provider>;
  openJob(request: JobToolsRequest): Promise<JobTools>;
  /** Stops every server (jobs' own too), releases the providers, flushes the audit log. */
  close(): Promise<void>;
}

export async function startJobHost(options: JobHostOptions, kind: 'batch' | 'worker'): Promise<JobHost> {
  const env = options.env ?? process.env;
  const runDir = await mkdtemp(join(tmpdir(), `mcphost-${kind}-`));
  // The shared servers are read with the variable set too, so a config that uses it parses.
  const runEnv = { ...env, [JOB_DIR_VARIABLE]: runDir };
  let shared: Assembly;
  let perJobNames: string[];
  // Every configured server, per-job ones too: their approval rules (a built-in `bash` asks),
  // `toolChanges` and identity apply to the jobs' calls as to the shared servers'.
  let servers: Readonly<Record<string, ServerDefinition>>;
  try {
    servers = await configuredServers(options, runEnv);
    perJobNames = Object.keys(servers).filter((name) => isPerJob(servers[name]));
    shared = await assembleRunner({
      ...options,
      env: runEnv,
      interactive: false,
      servers: Object.fromEntries(Object.entries(servers).filter(([, definition]) => !isPerJob(definition))),
    });
  } catch (error) {
    await rm(runDir, { recursive: true, force: true });
    throw error;
  }
  const { config } = shared;
  const homeDir = options.homeDir ?? homedir();
  const notices = hostNotices(options.onEvent);
  const safety = withToolPins(
    mergeSafetyOptions(configSafety({ ...config, servers }), options.safety ?? {}),
    options,
    env,
  );
  // The shared runner's sink, for every job too: one sink per log in the process, so that lines
  // are written in order and the rotation's count of bytes is the file's (two sinks of one file
  // each count only their own lines, and rotate apart).
  const { audit } = shared;
  // The servers were read with this run's folder for MCPHOST_JOB_DIR: a per-job server that has it
  // in its arguments is named with the variable, so that it is the same server (and keeps its
  // pins) from one run to the next.
  const identify = (server: string) =>
    withoutRunDir(serverIdentity(shared.runner.pool, servers[server], server), runDir);
  const pins =
    safety.toolPins === undefined || safety.toolPins === false
      ? undefined
      : new ToolPinCheck({
          store: safety.toolPins,
          queue: new QuestionQueue(),
          sessionId: randomUUID(),
          identify,
          ...definedProperties({
            settings: safety.toolChanges,
            audit,
            onWarning: notices.warning,
            onChange: notices.toolChange,
          }),
        });
  const providers = new Map<string, Promise<Provider>>([
    [shared.modelString, Promise.resolve(shared.runner.provider)],
  ]);
  const { library: skills } = skillsFor({
    pool: shared.runner.pool,
    config,
    homeDir,
    env,
    onWarning: notices.warning,
  });
  // Spans of each job's runs, when a tracer provider is registered (nothing loaded otherwise).
  const telemetry = await jobTelemetry(options.telemetry, env);
  // The jobs running now: their own servers are stopped with the host if a job never ends.
  const open = new Set<JobTools>();

  const openJob = async (request: JobToolsRequest): Promise<JobTools> => {
    let jobDir: string | undefined;
    let isolated: McpPool | undefined;
    const release = async (): Promise<void> => {
      await isolated?.close();
      if (jobDir !== undefined) await rm(jobDir, { recursive: true, force: true });
    };
    try {
      // Only a job that may call a per-job server pays for starting one.
      const wantsPerJob = request.servers?.some((name) => perJobNames.includes(name)) ?? true;
      if (perJobNames.length > 0 && wantsPerJob) {
        jobDir = await mkdtemp(join(runDir, 'job-'));
        const jobEnv = { ...env, [JOB_DIR_VARIABLE]: jobDir };
        const jobServers = await configuredServers(options, jobEnv);
        // Only the servers, started as the shared ones were (roots, sandbox, sign-in), with their
        // questions and sampling through the shared runner; a job whose own servers all failed to
        // start fails, rather than running without them.
        isolated = await shared.startServers(
          Object.fromEntries(Object.entries(jobServers).filter(([, definition]) => isPerJob(definition))),
          { env: jobEnv, ...definedProperties({ signal: request.signal }) },
        );
      }
      const host = new JobToolHost({
        pools: isolated === undefined ? [shared.runner.pool] : [shared.runner.pool, isolated],
        ...definedProperties({ servers: request.servers }),
      });
      const unknown = host.unknownServers();
      if (unknown.length > 0) {
        const names = unknown.map((name) => JSON.stringify(name)).join(', ');
        throw new ConfigError(request.where, `no configured server ${names} in this ${kind}'s config`);
      }
      const tools = withSkillTool(host, skills);
      const { guard, runnerOptions: hookOptions } = assembleSafety({
        host: tools.host,
        safety: {
          ...safety,
          approval: [...builtinApprovalRules(servers), ...(safety.approval ?? [])],
          approvalFallback: safety.approvalFallback ?? 'allow',
        },
        locate: (name) => tools.locate(name),
        identify,
        ...definedProperties({ pins, audit, toolOutputFolder: toolOutputFolderFor(options, env) }),
        hookContext: {
          sessionId: randomUUID(),
          model: request.model,
          interactive: false,
          cwd: resolve(options.projectDir ?? process.cwd()),
        },
        env,
        ...definedProperties({
          onFlagged: notices.contentFlagged,
          onWarning: notices.warning,
          traceEnvironment: telemetry?.traceEnvironment,
        }),
      });
      const agent = request.agent;
      const observer = telemetry?.observer(
        request.jobKey,
        isolated === undefined ? [shared.runner.pool] : [shared.runner.pool, isolated],
      );
      const jobTools: JobTools = {
        host:
          agent === undefined
            ? guard
            : narrowedToolHost(
                guard.forAgent(agent.name),
                toolFilterOf(agent, (name) => tools.locate(name)?.server),
                agent.name,
              ),
        runnerOptions: hookOptions,
        ...definedProperties({ observer }),
        close: async () => {
          open.delete(jobTools);
          await guard.close();
          await release();
        },
      };
      open.add(jobTools);
      return jobTools;
    } catch (error) {
      await release();
      throw error;
    }
  };

  return {
    shared,
    config,
    safety,
    perJobNames,
    provider(model, what) {
      let provider = providers.get(model);
      if (provider === undefined) {
        provider = createModel(model, options, config, env, what);
        providers.set(model, provider);
        provider.catch(() => undefined);
      }
      return provider;
    },
    openJob,
    async close() {
      await Promise.allSettled([...open].map((tools) => tools.close()));
      const made = await Promise.allSettled([...providers.values()]);
      await shared.runner.close();
      for (const outcome of made) {
        if (outcome.status === 'fulfilled' && outcome.value !== shared.runner.provider) {
          await outcome.value.close?.();
        }
      }
      await audit?.flush();
      await rm(runDir, { recursive: true, force: true });
    },
  };
}

function withoutRunDir(identity: ServerIdentity | undefined, runDir: string): ServerIdentity | undefined {
  const named = (text: string | undefined) => text?.replaceAll(runDir, '${' + JOB_DIR_VARIABLE + '}');
  return identity === undefined
    ? undefined
    : { ...identity, ...definedProperties({ command: named(identity.command), url: named(identity.url) }) };
}

function isPerJob(definition: ServerDefinition | undefined): boolean {
  return definition?.isolation === 'per-job';
}

/** The servers a runner of these options would start, read with `env` (a job's folder in it). */
async function configuredServers(
  options: JobHostOptions,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Readonly<Record<string, ServerDefinition>>> {
  if (options.servers !== undefined) return options.servers;
  if (options.mcpServers !== undefined) {
    return parseConfig({ mcpServers: options.mcpServers }, 'mcpServers option', env).servers;
  }
  const loaded = await loadConfig({
    ...definedProperties({
      configPath: options.configPath,
      trustProject: options.trustProject,
      askInput: options.askInput,
    }),
    homeDir: options.homeDir ?? homedir(),
    env,
    projectDir: resolve(options.projectDir ?? process.cwd()),
  });
  return loaded.servers;
}
