/**
 * `mcphost jobs …`: durable jobs on PostgreSQL (docs/workers.md); `mcphost worker` is in
 * worker-command.ts. Parsing is in jobs-tree.ts; this module, and DBOS with it, is imported only
 * when one of them runs.
 */
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { loadConfig } from '../../../config/index.js';
import { parseJobLines, parseVarArguments, type NumberedJob } from '../../batch/job.js';
import { ConfigError } from '../../core/errors.js';
import { DATABASE_URL_VARIABLE, databaseAddress } from '../../jobs/workers/database.js';
import { JobsClient, type JobState } from '../../jobs/workers/jobs-client.js';
import { DEFAULT_DEAD_AFTER_MS } from '../../jobs/workers/worker.js';
import { checkedAgents, loadAgentCatalog, requireAgent } from '../../setup/agents.js';
import { defaultModel } from '../../setup/create-runner.js';
import { JOB_DIR_VARIABLE } from '../../setup/job-host.js';
import { definedProperties } from '../../util/defined-properties.js';
import { ExitCode, type ExitCodeValue } from '../exit-codes.js';
import { notice, type CliIO } from '../io.js';
import type { JobsCommand } from './jobs-tree.js';

export interface JobsCommandContext {
  readonly io: CliIO;
  /** Aborted by Ctrl-C or SIGTERM: `--follow` ends, a worker stops. */
  readonly signal: AbortSignal;
}

/**
 * The jobs database: `--db`, else the environment variable, else the config's `jobs.database`
 * (the home config, or the worker's `--config`). The config is read only when it is needed, so a
 * config with a problem elsewhere does not stop a command given `--db`.
 */
export async function databaseUrl(
  given: string | undefined,
  io: CliIO,
  configPath?: string,
): Promise<string> {
  const fromEnv = io.env[DATABASE_URL_VARIABLE];
  if (given !== undefined) return checkedUrl(given, '--db');
  if (fromEnv !== undefined && fromEnv.trim() !== '') return checkedUrl(fromEnv, DATABASE_URL_VARIABLE);
  // The config checks its own value (a bad one names the file and the key).
  const url = (await readConfig(io, definedProperties({ configPath }))).jobs?.database;
  if (url === undefined) {
    throw new ConfigError(
      '--db',
      `no jobs database: give --db postgres://…, set ${DATABASE_URL_VARIABLE}, or "jobs": { "database": … } in the config`,
    );
  }
  return url;
}

/** A URL that is not PostgreSQL's is the user's mistake (exit 2), not an unreachable server. */
function checkedUrl(url: string, source: string): string {
  // The value is not repeated: it may hold a password.
  if (!/^postgres(ql)?:\/\/\S+$/.test(url.trim())) {
    throw new ConfigError(source, 'must be a URL starting with postgres:// or postgresql://');
  }
  return url.trim();
}

export async function runJobsCommand(
  command: JobsCommand,
  context: JobsCommandContext,
): Promise<ExitCodeValue> {
  const { io } = context;
  quietDriverDeprecations();
  const url = await databaseUrl(command.db, io);
  // The file is read before the database is opened: a missing file is the first thing to say.
  const submission =
    command.action === 'submit'
      ? await withAgentModels(await readJobsFile(command.file, command.vars, io), command.file, io)
      : undefined;
  const client = await JobsClient.open(url);
  try {
    // Keys that name no job are one line naming them, before anything is done to the others.
    const given = command.action === 'submit' || command.action === 'recover' ? [] : command.keys;
    const known = given.length > 0 ? await knownJobs(client, given, `jobs ${command.action}`, url) : [];
    switch (command.action) {
      case 'submit': {
        const { jobs, invalid } = submission ?? { jobs: [], invalid: 0 };
        const model = command.model ?? (await configuredModel(io));
        const outcomes = await client.submit(jobs, {
          defaultModel: model,
          ...(command.limits === undefined ? {} : { limits: command.limits }),
        });
        const enqueued = outcomes.filter((outcome) => outcome.kind === 'enqueued').length;
        const again = outcomes.length - enqueued;
        notice(
          io,
          `submitted ${enqueued} job${enqueued === 1 ? '' : 's'}` +
            (again > 0 ? `, ${again} already submitted (not run again)` : '') +
            (invalid > 0 ? `, ${invalid} invalid line${invalid === 1 ? '' : 's'} skipped` : ''),
        );
        return invalid > 0 ? ExitCode.usage : ExitCode.ok;
      }
      case 'status': {
        if (command.follow) {
          const [key] = command.keys;
          if (key === undefined || command.keys.length > 1) {
            throw new ConfigError('--follow', 'give one job: mcphost jobs status --follow KEY');
          }
          await Promise.race([
            client.follow(key, (text) => io.stdout.write(text)),
            new Promise<void>((done) =>
              context.signal.addEventListener('abort', () => done(), { once: true }),
            ),
          ]);
          io.stdout.write('\n');
          return ExitCode.ok;
        }
        const states = await client.states(command.keys.length > 0 ? command.keys : undefined);
        if (command.keys.length > 0) {
          for (const state of states) {
            io.stdout.write(
              `${state.key}\t${state.status}\t${state.model ?? '-'}\t${state.executorId ?? '-'}\n`,
            );
          }
          return ExitCode.ok;
        }
        const counts = new Map<string, number>();
        for (const state of states) counts.set(state.status, (counts.get(state.status) ?? 0) + 1);
        io.stdout.write(`jobs: ${states.length}\n`);
        for (const [status, count] of [...counts].sort()) io.stdout.write(`  ${status}: ${count}\n`);
        const workers = await client.workers();
        io.stdout.write(`workers: ${workers.length}\n`);
        for (const worker of workers) {
          const seen = Number.isFinite(worker.lastSeen.getTime()) ? worker.lastSeen.toISOString() : 'stopped';
          io.stdout.write(`  ${worker.executorId}\tlast seen ${seen}\n`);
        }
        return ExitCode.ok;
      }
      case 'results':
        for (const result of await client.results(command.keys.length > 0 ? command.keys : undefined)) {
          io.stdout.write(`${JSON.stringify(result)}\n`);
        }
        // A job named that has no result yet would otherwise be silently missing from the output.
        for (const state of known.filter((job) => !FINISHED.has(job.status))) {
          notice(io, `jobs results: "${state.key}" has no result yet (${state.status})`);
        }
        return ExitCode.ok;
      case 'cancel': {
        // DBOS leaves a finished job as it is: say so rather than count it as cancelled.
        const finished = known.filter((state) => FINISHED.has(state.status));
        for (const state of finished)
          notice(io, `jobs cancel: "${state.key}" has already ended (${state.status})`);
        const found = await client.cancel(
          known.filter((state) => !FINISHED.has(state.status)).map((state) => state.key),
        );
        notice(io, `cancelled ${found.length} job${found.length === 1 ? '' : 's'}`);
        return finished.length === 0 ? ExitCode.ok : ExitCode.usage;
      }
      case 'retry': {
        const retried = new Set(await client.retry(command.keys.length > 0 ? command.keys : undefined));
        const skipped = known.filter((state) => !retried.has(state.key));
        for (const state of skipped) {
          notice(
            io,
            `jobs retry: "${state.key}" is ${state.status}; only failed or cancelled jobs are run again`,
          );
        }
        notice(io, `retrying ${retried.size} job${retried.size === 1 ? '' : 's'}`);
        return skipped.length === 0 ? ExitCode.ok : ExitCode.usage;
      }
      case 'recover': {
        const recovered = await client.recover({
          ...(command.executors.length > 0 ? { executorIds: command.executors } : {}),
          deadAfterMs: command.deadAfterMs ?? DEFAULT_DEAD_AFTER_MS,
        });
        if (recovered.length === 0) notice(io, 'no dead worker found');
        for (const { executorId, jobs } of recovered) {
          notice(io, `recovered ${jobs.length} job${jobs.length === 1 ? '' : 's'} of worker ${executorId}`);
        }
        return ExitCode.ok;
      }
    }
  } finally {
    await client.close();
  }
}

/**
 * DBOS drives the pg driver in a way the driver now calls deprecated ("Calling client.query() when
 * the client is already executing a query"): a warning of Node's on every command that is neither
 * ours to fix nor the user's to act on. These commands print nothing else of Node's deprecations.
 */
export function quietDriverDeprecations(): void {
  process.noDeprecation = true;
}

/** DBOS's states of a job that has ended and will not run again unless retried. */
const FINISHED: ReadonlySet<string> = new Set(['SUCCESS', 'ERROR']);

/** The states of the given jobs; a ConfigError naming every key that is no job. */
async function knownJobs(
  client: JobsClient,
  keys: readonly string[],
  command: string,
  url: string,
): Promise<JobState[]> {
  const states = await client.states(keys);
  const found = new Set(states.map((state) => state.key));
  const unknown = [...new Set(keys.filter((key) => !found.has(key)))];
  if (unknown.length > 0) {
    const named = unknown.map((key) => JSON.stringify(key)).join(', ');
    throw new ConfigError(
      command,
      `no job${unknown.length === 1 ? '' : 's'} ${named} in the jobs database at ${databaseAddress(url)} (mcphost jobs status lists them)`,
    );
  }
  return states;
}

/**
 * A job with `agent` runs on the agent's model unless its line names one: the model decides the
 * queue, so it is chosen here. A job naming no agent of this config and agent files is one notice
 * naming the file, the line and the agent, and is not submitted.
 */
async function withAgentModels(
  submission: { readonly jobs: NumberedJob[]; readonly invalid: number },
  file: string,
  io: CliIO,
): Promise<{ readonly jobs: NumberedJob[]; readonly invalid: number }> {
  if (!submission.jobs.some((numbered) => numbered.job.agent !== undefined)) return submission;
  const config = await readConfig(io, { projectDir: io.cwd });
  const agents = checkedAgents(await loadAgentCatalog({ config, homeDir: io.homeDir, env: io.env }));
  const jobs: NumberedJob[] = [];
  let invalid = submission.invalid;
  for (const numbered of submission.jobs) {
    const name = numbered.job.agent;
    if (name === undefined) {
      jobs.push(numbered);
      continue;
    }
    try {
      const agent = requireAgent(agents, name, `line ${numbered.line}: "agent"`);
      const model = numbered.job.model ?? agent.model;
      jobs.push(model === undefined ? numbered : { ...numbered, job: { ...numbered.job, model } });
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      invalid += 1;
      notice(io, `${file}: ${error.message}`);
    }
  }
  return { jobs, invalid };
}

/** Reads and parses a jobs file; each bad line is one notice naming the file and the line. */
async function readJobsFile(
  file: string,
  varArguments: readonly string[],
  io: CliIO,
): Promise<{ readonly jobs: NumberedJob[]; readonly invalid: number }> {
  const path = resolve(io.cwd, file);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'is a folder, not a jobs file'
          : `cannot be read (${String(code)})`;
    throw new ConfigError(file, why);
  }
  let vars: Record<string, string>;
  try {
    vars = parseVarArguments(varArguments);
  } catch (error) {
    throw new ConfigError('--var', error instanceof Error ? error.message : String(error));
  }
  const jobs: NumberedJob[] = [];
  let invalid = 0;
  for (const entry of parseJobLines(text.split('\n'), { vars })) {
    switch (entry.kind) {
      case 'job':
        jobs.push(entry.job);
        break;
      case 'invalid':
        invalid += 1;
        notice(io, `${file}: ${entry.message}`);
        break;
      case 'blank':
        break;
    }
  }
  return { jobs, invalid };
}

/**
 * The config, for its settings only: no server is started from it, so a per-job server's
 * `${MCPHOST_JOB_DIR}` (set by a worker for each job) is given a stand-in rather than failing.
 */
function readConfig(
  io: CliIO,
  where: { readonly configPath?: string; readonly projectDir?: string },
): ReturnType<typeof loadConfig> {
  return loadConfig({
    ...where,
    homeDir: io.homeDir,
    env: { [JOB_DIR_VARIABLE]: tmpdir(), ...io.env },
    // Only the model and the servers' names are read here: no input needs a value yet.
    leaveInputs: true,
  });
}

async function configuredModel(io: CliIO): Promise<string> {
  const config = await readConfig(io, { projectDir: io.cwd });
  return config.model ?? defaultModel(config.providerUrl, io.env);
}
