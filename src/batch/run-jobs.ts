/**
 * The batch scheduler: runs jobs `concurrency` at a time, tries a failed job again when its error
 * may pass (see {@link isRetryableJobError}), and yields each job's result as it ends. It knows
 * nothing of servers or models: `runAttempt` runs one attempt of one job (src/setup/batch.ts gives
 * it a fresh Runner over the shared servers). A failed job is a result like any other; only the
 * caller's signal stops the batch, and jobs it interrupts yield nothing (they were not done).
 */
import { setMaxListeners } from 'node:events';
import { isRetryable, messageOf, ServerError } from '../core/errors.js';
import type { RunResult } from '../core/events.js';
import type { Usage } from '../core/types.js';
import { EventQueue } from '../util/event-queue.js';
import type { NumberedJob } from './job.js';
import { TOOL_ERROR_CHARS, type BatchJobError, type BatchResult, type BatchToolCall } from './result.js';

/** Attempts after the first for a job whose error may pass; see docs/batch.md, "Retries". */
export const DEFAULT_JOB_RETRIES = 2;
/** The wait before a job's second attempt; doubled for each further one. */
export const DEFAULT_JOB_RETRY_DELAY_MS = 2_000;
/** Jobs run at once by default. */
export const DEFAULT_CONCURRENCY = 4;

/** How one attempt of a job ended. */
export type AttemptOutcome =
  | { readonly kind: 'completed'; readonly result: RunResult }
  | {
      readonly kind: 'failed';
      readonly error: unknown;
      /** What the attempt used and called before it failed (from its events). */
      readonly usage: Usage;
      readonly toolCalls: readonly BatchToolCall[];
    };

/** What the scheduler tells its caller while jobs run (for a progress display). */
export type JobProgress =
  | { readonly type: 'job-start'; readonly job: NumberedJob; readonly attempt: number }
  /** The job ended (its result is about to be yielded) or was stopped (`stopped`, no result). */
  | { readonly type: 'job-end'; readonly job: NumberedJob; readonly stopped: boolean }
  | {
      readonly type: 'job-retry';
      readonly job: NumberedJob;
      readonly attempt: number;
      readonly delayMs: number;
      readonly error: BatchJobError;
    };

export interface RunJobsOptions {
  /** Runs one attempt of one job. Should not throw (a throw counts as a failed attempt). */
  readonly runAttempt: (job: NumberedJob, attempt: number, signal: AbortSignal) => Promise<AttemptOutcome>;
  /** Jobs run at once (at least 1). Default {@link DEFAULT_CONCURRENCY}. */
  readonly concurrency?: number;
  /** Attempts after the first for a retryable failure. Default {@link DEFAULT_JOB_RETRIES}. */
  readonly retries?: number;
  /** The wait before the second attempt, doubled after. Default {@link DEFAULT_JOB_RETRY_DELAY_MS}. */
  readonly retryDelayMs?: number;
  /** Stops the batch: no job starts after it, jobs in flight are cancelled and yield no result. */
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: JobProgress) => void;
  /** The clock for durations. Default `Date.now`. */
  readonly now?: () => number;
  /** The wait between attempts (tests inject one that does not wait). Default: a timer the signal cuts short. */
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/**
 * Whether the batch tries a failed job again: a provider failure that may pass (the run already
 * retried it 5 times; a longer outage or a rate limit over minutes may still pass), or a server
 * that failed (a per-job server that did not start). A bad request, a missing key, the step limit,
 * a blocked prompt, a schema the answer never matched: the same again would fail the same way.
 */
export function isRetryableJobError(error: unknown): boolean {
  return isRetryable(error) || error instanceof ServerError;
}

/** Runs the jobs and yields a result for each as it ends (in the order they end). */
export function runJobs(
  jobs: Iterable<NumberedJob> | AsyncIterable<NumberedJob>,
  options: RunJobsOptions,
): AsyncIterable<BatchResult> {
  const stop = new AbortController();
  const signal = options.signal === undefined ? stop.signal : AbortSignal.any([options.signal, stop.signal]);
  // The consumer leaving its loop early stops the batch like the caller's signal.
  const results = new EventQueue<BatchResult>(() => {
    stop.abort();
  });
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? DEFAULT_CONCURRENCY));
  // Every job in flight listens to the batch's signal (its run, its tool calls, its server start):
  // many listeners on one signal are the design here, not a leak.
  setMaxListeners(0, signal);
  const source = toAsyncIterator(jobs);
  // One source, several lanes: each lane takes the next job when it is free.
  let taking: Promise<unknown> = Promise.resolve();
  const nextJob = (): Promise<IteratorResult<NumberedJob>> => {
    const next = taking.then(() => (signal.aborted ? done() : source.next()));
    taking = next.catch(() => undefined);
    return next;
  };
  const lane = async (): Promise<void> => {
    for (;;) {
      const next = await nextJob();
      if (next.done === true || signal.aborted) return;
      const result = await runOneJob(next.value, options, signal);
      options.onProgress?.({ type: 'job-end', job: next.value, stopped: result === undefined });
      if (result !== undefined) results.push(result);
    }
  };
  void Promise.all(Array.from({ length: concurrency }, lane)).then(
    () => {
      results.end();
    },
    (error: unknown) => {
      results.fail(error);
    },
  );
  return results;
}

/** Every attempt of one job; `undefined` when the batch was stopped before the job ended. */
async function runOneJob(
  job: NumberedJob,
  options: RunJobsOptions,
  signal: AbortSignal,
): Promise<BatchResult | undefined> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? abortableSleep;
  const retries = Math.max(0, Math.floor(options.retries ?? DEFAULT_JOB_RETRIES));
  const started = now();
  const usage = { inputTokens: 0, outputTokens: 0 };
  const toolCalls: BatchToolCall[] = [];
  for (let attempt = 1; ; attempt++) {
    options.onProgress?.({ type: 'job-start', job, attempt });
    let outcome: AttemptOutcome;
    try {
      outcome = await options.runAttempt(job, attempt, signal);
    } catch (error) {
      outcome = { kind: 'failed', error, usage: { inputTokens: 0, outputTokens: 0 }, toolCalls: [] };
    }
    // A run the stop cut short did not end: no result, and it runs again next time. One that
    // completed as the stop came is kept.
    if (outcome.kind === 'failed' && signal.aborted) return undefined;
    const attemptUsage = outcome.kind === 'completed' ? outcome.result.usage : outcome.usage;
    usage.inputTokens += attemptUsage.inputTokens;
    usage.outputTokens += attemptUsage.outputTokens;
    const base = { key: job.key, ...(job.job.id === undefined ? {} : { id: job.job.id }), line: job.line };
    if (outcome.kind === 'completed') {
      const { result } = outcome;
      toolCalls.push(...result.toolCalls.map(toolCallOf));
      return {
        ...base,
        status: 'ok',
        answer: result.text,
        ...('structured' in result ? { structured: result.structured } : {}),
        toolCalls,
        usage,
        durationMs: now() - started,
        attempts: attempt,
      };
    }
    toolCalls.push(...outcome.toolCalls);
    const error = jobErrorOf(outcome.error);
    if (!error.retryable || attempt > retries) {
      return {
        ...base,
        status: 'failed',
        toolCalls,
        usage,
        durationMs: now() - started,
        attempts: attempt,
        error,
      };
    }
    const delayMs = (options.retryDelayMs ?? DEFAULT_JOB_RETRY_DELAY_MS) * 2 ** (attempt - 1);
    options.onProgress?.({ type: 'job-retry', job, attempt: attempt + 1, delayMs, error });
    await sleep(delayMs, signal);
    if (stopped(signal)) return undefined;
  }
}

export function toolCallOf(record: RunResult['toolCalls'][number]): BatchToolCall {
  const call = { name: record.call.name, isError: record.result.isError, durationMs: record.durationMs };
  if (!record.result.isError) return call;
  const text = record.result.content.find((part) => part.type === 'text')?.text ?? '';
  const firstLine = text.trim().split('\n', 1)[0] ?? '';
  if (firstLine === '') return call;
  return {
    ...call,
    error: firstLine.length > TOOL_ERROR_CHARS ? `${firstLine.slice(0, TOOL_ERROR_CHARS - 1)}…` : firstLine,
  };
}

export function jobErrorOf(error: unknown): BatchJobError {
  return {
    kind: error instanceof Error ? error.name : 'Error',
    message: messageOf(error),
    retryable: isRetryableJobError(error),
  };
}

/** Read through a call: TypeScript would take the flag as still false after an await. */
function stopped(signal: AbortSignal): boolean {
  return signal.aborted;
}

function done(): IteratorResult<NumberedJob> {
  return { done: true, value: undefined };
}

function toAsyncIterator<T>(items: Iterable<T> | AsyncIterable<T>): AsyncIterator<T> {
  if (Symbol.asyncIterator in items) return items[Symbol.asyncIterator]();
  const iterator = items[Symbol.iterator]();
  return { next: () => Promise.resolve(iterator.next()) };
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve();
      return;
    }
    const timer = setTimeout(finish, ms);
    function finish(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', finish);
      resolve();
    }
    signal.addEventListener('abort', finish, { once: true });
  });
}
