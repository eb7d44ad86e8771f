/**
 * `mcphost jobs …` and `mcphost worker`: durable jobs on PostgreSQL (docs/workers.md). Parsing is
 * in jobs-tree.ts; this module, and DBOS with it, is imported only when one of them runs.
 */
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import type { DLogger } from '@dbos-inc/dbos-sdk';
import { loadConfig } from '../../../config/index.js';
import { parseJobLines, parseVarArguments, type NumberedJob } from '../../batch/job.js';
import { ConfigError } from '../../core/errors.js';
import { DATABASE_URL_VARIABLE } from '../../jobs/workers/database.js';
import { JobsClient } from '../../jobs/workers/jobs-client.js';
import { DEFAULT_DEAD_AFTER_MS, startWorker, type WorkerNotice } from '../../jobs/workers/worker.js';
import { defaultModel } from '../../setup/create-runner.js';
import { assembleWorkerRuntime } from '../../setup/worker-runtime.js';
import { packageVersion } from '../../util/version.js';
import { ExitCode, type ExitCodeValue } from '../exit-codes.js';
import { notice, type CliIO } from '../io.js';
import type { JobsCommand, WorkerCommand } from './jobs-tree.js';

export interface JobsCommandContext {
  readonly io: CliIO;
  /** Aborted by Ctrl-C or SIGTERM: `--follow` ends, a worker stops. */
  readonly signal: AbortSignal;
}

function databaseUrl(given: string | undefined, io: CliIO): string {
  const url = given ?? io.env[DATABASE_URL_VARIABLE];
  if (url === undefined || url.trim() === '') {
    throw new ConfigError('--db', `no jobs database: give --db postgres://… or set ${DATABASE_URL_VARIABLE}`);
  }
  return url;
}

export async function runJobsCommand(
  command: JobsCommand,
  context: JobsCommandContext,
): Promise<ExitCodeValue> {
  const { io } = context;
  const url = databaseUrl(command.db, io);
  // The file is read before the database is opened: a missing file is the first thing to say.
  const submission =
    command.action === 'submit' ? await readJobsFile(command.file, command.vars, io) : undefined;
  const client = await JobsClient.open(url);
  try {
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
        return ExitCode.ok;
      case 'cancel': {
        const found = await client.cancel(command.keys);
        notice(io, `cancelled ${found.length} job${found.length === 1 ? '' : 's'}`);
        return found.length === command.keys.length ? ExitCode.ok : ExitCode.usage;
      }
      case 'retry': {
        const retried = await client.retry(command.keys.length > 0 ? command.keys : undefined);
        notice(io, `retrying ${retried.length} job${retried.length === 1 ? '' : 's'}`);
        return ExitCode.ok;
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
    throw new ConfigError(file, code === 'ENOENT' ? 'no such file' : `cannot be read (${String(code)})`);
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

async function configuredModel(io: CliIO): Promise<string> {
  const config = await loadConfig({ homeDir: io.homeDir, env: io.env, projectDir: io.cwd });
  return config.model ?? defaultModel(config.providerUrl, io.env);
}

/** DBOS's log lines: warnings and errors always, the rest with `--debug`. */
function dbosLogger(io: CliIO, debug: boolean): DLogger {
  const write = (level: string, entry: unknown): void => {
    const text =
      entry instanceof Error ? entry.message : typeof entry === 'string' ? entry : JSON.stringify(entry);
    notice(io, `dbos ${level}: ${text}`);
  };
  return {
    info: (entry) => debug && write('info', entry),
    debug: (entry) => debug && write('debug', entry),
    warn: (entry) => write('warning', entry),
    error: (entry) => write('error', entry),
  };
}

export async function runWorkerCommand(
  command: WorkerCommand,
  context: JobsCommandContext,
): Promise<ExitCodeValue> {
  const { io, signal } = context;
  const url = databaseUrl(command.db, io);
  const executorId = command.executorId ?? `${hostname()}:${process.pid}`;
  const assembled = await assembleWorkerRuntime({
    ...(command.configPath === undefined ? {} : { configPath: command.configPath }),
    ...(command.model === undefined ? {} : { model: command.model }),
    ...(command.maxSteps === undefined ? {} : { maxSteps: command.maxSteps }),
    env: io.env,
    homeDir: io.homeDir,
    projectDir: io.cwd,
    // A worker has no screen: warnings go to stderr; the rest of the host's notices are for a chat.
    onEvent: (event) => {
      if (event.type === 'warning') notice(io, event.message);
    },
  });
  try {
    const worker = await startWorker({
      databaseUrl: url,
      executorId,
      applicationVersion: packageVersion(),
      runtime: assembled.runtime,
      ...(command.deadAfterMs === undefined ? {} : { deadAfterMs: command.deadAfterMs }),
      logger: dbosLogger(io, command.debug),
      onNotice: (workerNotice) => notice(io, describeNotice(workerNotice, assembled.serverNames)),
    });
    if (!signal.aborted) {
      await new Promise<void>((done) => signal.addEventListener('abort', () => done(), { once: true }));
    }
    notice(io, `worker ${executorId} stopping: running jobs get a few seconds to finish`);
    await worker.stop();
    notice(io, `worker ${executorId} stopped`);
    return ExitCode.ok;
  } finally {
    await assembled.close();
  }
}

function describeNotice(workerNotice: WorkerNotice, servers: readonly string[]): string {
  switch (workerNotice.type) {
    case 'started':
      return `worker ${workerNotice.executorId} running jobs (servers: ${servers.length > 0 ? servers.join(', ') : 'none'})`;
    case 'recovered':
      return `recovered ${workerNotice.jobs.length} job(s) of worker ${workerNotice.executorId}, which is gone`;
    case 'heartbeat-failed':
      return `heartbeat failed: ${workerNotice.message}`;
    default: {
      const unreachable: never = workerNotice;
      return unreachable;
    }
  }
}
