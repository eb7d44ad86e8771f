/**
 * The `jobs` commands' side of the database: enqueue jobs, read their state and results, follow a
 * job's text, cancel, retry and recover. Everything goes through DBOS's own client; the job's key
 * is the workflow id, so submitting a job twice finds the first and runs it once.
 */
import { DBOSClient, type WorkflowStatus } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import type { NumberedJob } from '../../batch/job.js';
import type { BatchResult } from '../../batch/result.js';
import { checkDatabase, migrateDatabase } from './database.js';
import type { JobInput } from './job-input.js';
import {
  APPLICATION_NAME,
  JOB_WORKFLOW_NAME,
  modelOfQueue,
  queueNameForModel,
  TEXT_STREAM,
} from './names.js';
import { claimDeadExecutors, ensurePresenceTable, listWorkers, recoverExecutor } from './presence.js';

/** Jobs of one model a worker runs at once when the queue was made without `--concurrency`. */
export const DEFAULT_WORKER_CONCURRENCY = 8;

/**
 * How often each worker polls each model queue for jobs (DBOS's default is a second). A slot a job
 * frees stays empty until the next poll, so this bounds how busy a worker's slots are: with jobs of
 * half a second, 200 ms kept them about 80% busy in the workers bench and 100 ms about 90%, for
 * twice the polling queries from every worker (docs/workers.md, "Throughput").
 */
export const QUEUE_POLLING_INTERVAL_MS = 200;

/** A model queue's limits, shared by every worker (DBOS enforces them from the database). */
export interface QueueLimits {
  /** Jobs of this model one worker runs at once. */
  readonly workerConcurrency?: number;
  /** Jobs of this model running at once over all workers. */
  readonly globalConcurrency?: number;
  /** At most `limitPerPeriod` jobs of this model start per `periodSec` seconds, over all workers. */
  readonly rateLimit?: { readonly limitPerPeriod: number; readonly periodSec: number };
}

export interface SubmitOptions {
  /** The model of jobs that name none. */
  readonly defaultModel: string;
  /** Set on the queues of the jobs' models (else a new queue gets the defaults, an old one keeps its own). */
  readonly limits?: QueueLimits;
}

/** What became of one submitted job. */
export type SubmitOutcome =
  | { readonly kind: 'enqueued'; readonly key: string; readonly model: string }
  /** A job with this key was submitted before: it is not run again. */
  | { readonly kind: 'already-submitted'; readonly key: string; readonly status: string };

/** One job's state, for `jobs status`. */
export interface JobState {
  readonly key: string;
  /** DBOS's status: ENQUEUED, PENDING, SUCCESS, ERROR, CANCELLED, MAX_RECOVERY_ATTEMPTS_EXCEEDED… */
  readonly status: string;
  readonly model: string | undefined;
  /** The worker running it (or that ran it). */
  readonly executorId: string | undefined;
}

export class JobsClient {
  readonly #client: DBOSClient;
  readonly #pool: pg.Pool;

  private constructor(client: DBOSClient, pool: pg.Pool) {
    this.#client = client;
    this.#pool = pool;
  }

  /** Opens the database (creating DBOS's tables if missing). Throws DatabaseUnreachableError. */
  static async open(databaseUrl: string): Promise<JobsClient> {
    await checkDatabase(databaseUrl);
    await migrateDatabase(databaseUrl);
    const client = await DBOSClient.create({
      systemDatabaseUrl: databaseUrl,
      applicationName: APPLICATION_NAME,
    });
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    pool.on('error', () => undefined);
    await ensurePresenceTable(pool);
    return new JobsClient(client, pool);
  }

  async close(): Promise<void> {
    await Promise.all([this.#client.destroy(), this.#pool.end()]);
  }

  /** Enqueues each job on its model's queue, unless a job with its key exists already. */
  async submit(jobs: readonly NumberedJob[], options: SubmitOptions): Promise<SubmitOutcome[]> {
    const existing = new Map<string, string>();
    for (const workflow of await this.#client.listWorkflows({
      workflowIDs: jobs.map((job) => job.key),
      loadInput: false,
      loadOutput: false,
    })) {
      existing.set(workflow.workflowID, workflow.status);
    }
    const models = new Set(jobs.map((job) => job.job.model ?? options.defaultModel));
    for (const model of models) await this.#prepareQueue(model, options.limits);
    const outcomes: SubmitOutcome[] = [];
    for (const numbered of jobs) {
      const status = existing.get(numbered.key);
      if (status !== undefined) {
        outcomes.push({ kind: 'already-submitted', key: numbered.key, status });
        continue;
      }
      const model = numbered.job.model ?? options.defaultModel;
      const input: JobInput = { key: numbered.key, line: numbered.line, job: { ...numbered.job, model } };
      await this.#client.enqueue(
        { workflowName: JOB_WORKFLOW_NAME, queueName: queueNameForModel(model), workflowID: numbered.key },
        input,
      );
      outcomes.push({ kind: 'enqueued', key: numbered.key, model });
    }
    return outcomes;
  }

  async #prepareQueue(model: string, limits: QueueLimits | undefined): Promise<void> {
    const name = queueNameForModel(model);
    if (limits === undefined && (await this.#client.retrieveQueue(name)) !== null) return;
    await this.#client.registerQueue(name, {
      workerConcurrency: limits?.workerConcurrency ?? DEFAULT_WORKER_CONCURRENCY,
      ...(limits?.globalConcurrency === undefined ? {} : { globalConcurrency: limits.globalConcurrency }),
      ...(limits?.rateLimit === undefined ? {} : { rateLimit: { ...limits.rateLimit } }),
      minPollingIntervalMs: QUEUE_POLLING_INTERVAL_MS,
      onConflict: 'always_update',
    });
  }

  /** Every job (or the given ones), oldest first. */
  async states(keys?: readonly string[]): Promise<JobState[]> {
    return (await this.#jobs(keys, false)).map((workflow) => ({
      key: workflow.workflowID,
      status: workflow.status,
      model: workflow.queueName === undefined ? undefined : modelOfQueue(workflow.queueName),
      executorId: workflow.executorId,
    }));
  }

  /** The results of finished jobs (SUCCESS and ERROR), oldest first, in the batch's result shape. */
  async results(keys?: readonly string[]): Promise<BatchResult[]> {
    const results: BatchResult[] = [];
    for (const workflow of await this.#jobs(keys, true)) {
      if (workflow.status === 'SUCCESS') results.push(workflow.output as BatchResult);
      else if (workflow.status === 'ERROR') results.push(failedResult(workflow));
    }
    return results;
  }

  /** Calls `onText` with the job's model text as it is written, until the job's stream ends. */
  async follow(key: string, onText: (text: string) => void): Promise<void> {
    for await (const text of this.#client.readStream<string>(key, TEXT_STREAM, { pollingIntervalMs: 200 })) {
      onText(text);
    }
  }

  /** Cancels jobs: a running one stops at its next step. Returns the keys found. */
  async cancel(keys: readonly string[]): Promise<string[]> {
    const found = (await this.#jobs(keys, false)).map((workflow) => workflow.workflowID);
    if (found.length > 0) await this.#client.cancelWorkflows(found);
    return found;
  }

  /**
   * Runs failed or cancelled jobs again (the given ones, else every one): a cancelled job resumes
   * where it stopped; a failed one is rewound to its last step, so the steps before it are not run
   * (or paid for) again. Returns the keys put back on their queue.
   */
  async retry(keys?: readonly string[]): Promise<string[]> {
    const retried: string[] = [];
    for (const workflow of await this.#jobs(keys, false)) {
      const queueName = workflow.queueName;
      const onQueue = queueName === undefined ? {} : { queueName };
      switch (workflow.status) {
        case 'CANCELLED':
        case 'MAX_RECOVERY_ATTEMPTS_EXCEEDED':
          await this.#client.resumeWorkflow(workflow.workflowID, onQueue);
          retried.push(workflow.workflowID);
          break;
        case 'ERROR': {
          const steps = (await this.#client.listWorkflowSteps(workflow.workflowID)) ?? [];
          const last = steps.reduce((highest, step) => Math.max(highest, step.functionID), 0);
          await this.#client.rewindWorkflow(workflow.workflowID, { startStep: last, ...onQueue });
          retried.push(workflow.workflowID);
          break;
        }
        default:
          break;
      }
    }
    return retried;
  }

  /**
   * Moves the jobs of dead workers onto the live ones: of the given executors (the caller knows
   * they are gone), else of every worker whose heartbeat is older than `deadAfterMs`.
   */
  async recover(options: {
    readonly executorIds?: readonly string[];
    readonly deadAfterMs: number;
  }): Promise<ReadonlyArray<{ readonly executorId: string; readonly jobs: readonly string[] }>> {
    const executors = options.executorIds ?? (await claimDeadExecutors(this.#pool, options.deadAfterMs));
    const recovered = [];
    for (const executorId of executors) {
      recovered.push({ executorId, jobs: await recoverExecutor(this.#client, executorId) });
    }
    return recovered;
  }

  /** The workers that have a heartbeat row, and when each was last seen. */
  workers(): ReturnType<typeof listWorkers> {
    return listWorkers(this.#pool);
  }

  async #jobs(keys: readonly string[] | undefined, loadOutput: boolean): Promise<WorkflowStatus[]> {
    return this.#client.listWorkflows({
      workflowName: JOB_WORKFLOW_NAME,
      ...(keys === undefined ? {} : { workflowIDs: [...keys] }),
      loadInput: false,
      loadOutput,
    });
  }
}

function failedResult(workflow: WorkflowStatus): BatchResult {
  const message = workflow.error instanceof Error ? workflow.error.message : String(workflow.error);
  const kind = /^([A-Za-z]+Error): /.exec(message)?.[1] ?? 'Error';
  return {
    key: workflow.workflowID,
    status: 'failed',
    toolCalls: [],
    usage: { inputTokens: 0, outputTokens: 0 },
    durationMs: (workflow.updatedAt ?? workflow.createdAt) - workflow.createdAt,
    attempts: 1,
    error: {
      kind,
      message: message.slice(kind.length + 2) || message,
      retryable: message.endsWith('(retryable)'),
    },
  };
}
