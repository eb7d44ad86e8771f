/**
 * `mcphost worker`: runs submitted jobs until stopped, exporting their traces when an OTLP endpoint
 * is given. Apart from jobs-commands.ts, which submits and follows jobs.
 */
import { hostname, tmpdir } from 'node:os';
import type { DLogger } from '@dbos-inc/dbos-sdk';
import { readEarlySettings } from '../../../config/index.js';
import { databaseIdentity } from '../../jobs/workers/database.js';
import { JOB_WORKFLOW_NAME } from '../../jobs/workers/names.js';
import { startWorker, type WorkerNotice } from '../../jobs/workers/worker.js';
import { JOB_DIR_VARIABLE } from '../../setup/job-host.js';
import { assembleWorkerRuntime } from '../../setup/worker-runtime.js';
import { packageVersion } from '../../util/version.js';
import { ExitCode, type ExitCodeValue } from '../exit-codes.js';
import { notice, pathIn, type CliIO } from '../io.js';
import { startTelemetryExport } from '../telemetry-export.js';
import { databaseUrl, quietDriverDeprecations, type JobsCommandContext } from './jobs-commands.js';
import type { WorkerCommand } from './jobs-tree.js';

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
  const { io } = context;
  quietDriverDeprecations();
  const url = await databaseUrl(command.db, io, command.configPath);
  const executorId = command.executorId ?? `${hostname()}:${process.pid}`;
  // Traces when an OTLP endpoint is given (docs/telemetry.md, "Batches and workers"): registered
  // before DBOS launches, so that DBOS's workflow and step spans go through it.
  const { telemetry } = await readEarlySettings({
    homeDir: io.homeDir,
    // Only `telemetry` is read: a per-job server's `${MCPHOST_JOB_DIR}` needs a value to parse.
    env: { [JOB_DIR_VARIABLE]: tmpdir(), ...io.env },
    configPath: pathIn(io, command.configPath),
  });
  const exporting = await startTelemetryExport(
    io.env,
    telemetry,
    (message) => notice(io, `warning: ${message}`),
    {
      // Every execution of a job (the first, a resume after a crash) in one trace.
      wrapTracerProvider: async () => {
        const [{ jobWorkflowTraces }, identity] = await Promise.all([
          import('../../telemetry/job-trace.js'),
          databaseIdentity(url),
        ]);
        return (provider) =>
          jobWorkflowTraces(provider, { workflowName: JOB_WORKFLOW_NAME, databaseIdentity: identity });
      },
    },
  );
  try {
    return await runWorker(command, context, url, executorId, telemetry);
  } finally {
    // Spans of the jobs run here go out before the worker exits (within a second).
    await exporting?.shutdown();
  }
}

async function runWorker(
  command: WorkerCommand,
  context: JobsCommandContext,
  url: string,
  executorId: string,
  telemetry: Awaited<ReturnType<typeof readEarlySettings>>['telemetry'],
): Promise<ExitCodeValue> {
  const { io, signal } = context;
  const assembled = await assembleWorkerRuntime({
    ...(telemetry?.captureContent === true ? { telemetry: { captureContent: true } } : {}),
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
