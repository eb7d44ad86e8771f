/**
 * A worker: one DBOS process that dequeues jobs from every model's queue and runs them with the
 * models and tools it was given. Any number run at once, on any machines, against one database;
 * each has its own executor id. Stopping one drains what it runs for a while, then leaves the rest
 * PENDING under its id: the same id launched again resumes them, and otherwise the live workers
 * recover them once its heartbeat is older than `deadAfterMs` (presence.ts).
 */
import { DBOS, DBOSClient, type DLogger } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { checkDatabase, migrateDatabase } from './database.js';
import { setJobRuntime, type JobRuntime } from './job-workflow.js';
import { APPLICATION_NAME } from './names.js';
import { beat, claimDeadExecutors, ensurePresenceTable, markGone, recoverExecutor } from './presence.js';
import { telemetryRegistered } from '../../telemetry/registered.js';

/** How often a worker says it is alive, and looks for dead ones. */
export const HEARTBEAT_INTERVAL_MS = 5_000;
/** A worker not heard from for this long is dead and its jobs go to the others (`--dead-after`). */
export const DEFAULT_DEAD_AFTER_MS = 60_000;
/** How long a stopping worker lets its running jobs finish before it leaves them for recovery. */
export const DEFAULT_DRAIN_MS = 10_000;

/** What a worker tells its caller (the CLI prints it). A tagged union: switch on `type`. */
export type WorkerNotice =
  | { readonly type: 'started'; readonly executorId: string }
  | { readonly type: 'recovered'; readonly executorId: string; readonly jobs: readonly string[] }
  | { readonly type: 'heartbeat-failed'; readonly message: string };

export interface WorkerOptions {
  /** The system database, `postgres://…`. */
  readonly databaseUrl: string;
  /** This worker's executor id: unique among the live workers; reuse it to resume after a crash. */
  readonly executorId: string;
  /** The version jobs are recorded with; a worker recovers only jobs of its own version. */
  readonly applicationVersion: string;
  readonly runtime: JobRuntime;
  /** Default {@link DEFAULT_DEAD_AFTER_MS}; `0` turns the automatic recovery off. */
  readonly deadAfterMs?: number;
  /** Where DBOS's own log lines go. */
  readonly logger?: DLogger;
  readonly onNotice?: (notice: WorkerNotice) => void;
}

/** A running worker. */
export interface RunningWorker {
  /** Stops dequeuing, waits up to `drainMs` for running jobs, then closes. */
  stop(drainMs?: number): Promise<void>;
}

/** Starts a worker. Throws a DatabaseUnreachableError when the database cannot be reached. */
export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  await checkDatabase(options.databaseUrl);
  await migrateDatabase(options.databaseUrl);
  setJobRuntime(options.runtime);
  DBOS.setConfig({
    name: APPLICATION_NAME,
    systemDatabaseUrl: options.databaseUrl,
    executorID: options.executorId,
    applicationVersion: options.applicationVersion,
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    // DBOS's workflow and step spans go through the registered provider (the CLI's, when it
    // exports: src/telemetry/job-trace.ts), never through DBOS's own exporter.
    ...(telemetryRegistered() ? { tracingEnabled: true, enableOTLP: false } : {}),
  });
  await DBOS.launch();
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 2 });
  pool.on('error', () => undefined);
  const client = await DBOSClient.create({
    systemDatabaseUrl: options.databaseUrl,
    applicationName: APPLICATION_NAME,
  });
  await ensurePresenceTable(pool);
  await beat(pool, options.executorId);
  options.onNotice?.({ type: 'started', executorId: options.executorId });
  const deadAfterMs = options.deadAfterMs ?? DEFAULT_DEAD_AFTER_MS;

  const tick = async (): Promise<void> => {
    try {
      await beat(pool, options.executorId);
      if (deadAfterMs <= 0) return;
      for (const dead of await claimDeadExecutors(pool, deadAfterMs, options.executorId)) {
        const jobs = await recoverExecutor(client, dead);
        options.onNotice?.({ type: 'recovered', executorId: dead, jobs });
      }
    } catch (error) {
      options.onNotice?.({
        type: 'heartbeat-failed',
        message: error instanceof Error ? error.message : String(error),
      });
    }
  };
  let ticking: Promise<void> = Promise.resolve();
  const timer = setInterval(
    () => {
      ticking = ticking.then(tick);
    },
    Math.min(HEARTBEAT_INTERVAL_MS, Math.max(250, deadAfterMs / 3)),
  );

  return {
    async stop(drainMs = DEFAULT_DRAIN_MS): Promise<void> {
      clearInterval(timer);
      await ticking;
      await DBOS.shutdown({ workflowCompletionTimeoutMS: drainMs });
      // Jobs the drain did not finish go to the live workers now, replayed from their last step.
      await markGone(pool, options.executorId).catch(() => undefined);
      await Promise.all([client.destroy(), pool.end()]);
    },
  };
}
