/**
 * The batch scheduler with a scripted provider: each attempt is a fresh Runner (as runBatch makes
 * one), the provider's failures are real ProviderErrors, and no wait is real (sleeps are injected).
 */
import { describe, expect, it } from 'vitest';
import { parseJobLine, type NumberedJob } from '../../src/batch/job.js';
import type { BatchResult } from '../../src/batch/result.js';
import {
  isRetryableJobError,
  runJobs,
  type AttemptOutcome,
  type JobProgress,
} from '../../src/batch/run-jobs.js';
import { MaxStepsError, ProviderError, ServerError } from '../../src/core/errors.js';
import { Runner } from '../../src/core/runner.js';
import { ScriptedProvider, textReply, type ScriptedReply } from '../support/scripted-provider.js';

function jobs(...prompts: string[]): NumberedJob[] {
  return prompts.map((prompt, index) => {
    const entry = parseJobLine(prompt, index + 1);
    if (entry.kind !== 'job') throw new Error('not a job');
    return entry.job;
  });
}

const unavailable = (): { error: Error } => ({
  error: new ProviderError('scripted', 'overloaded (503)', { status: 503, retryable: true }),
});
const badRequest = (): { error: Error } => ({
  error: new ProviderError('scripted', 'bad request (400)', { status: 400, retryable: false }),
});

/** One attempt = one fresh Runner over the job's scripted provider (5 inner retries, no real wait). */
function attemptsOver(replies: Record<string, ScriptedReply[]>) {
  const providers = new Map(
    Object.entries(replies).map(([prompt, script]) => [prompt, new ScriptedProvider(script)]),
  );
  return async (job: NumberedJob, _attempt: number, signal: AbortSignal): Promise<AttemptOutcome> => {
    const provider = providers.get(job.job.prompt);
    if (provider === undefined) throw new Error(`no script for ${job.job.prompt}`);
    const runner = new Runner({ provider, sleep: async () => undefined, maxSteps: 2 });
    try {
      return { kind: 'completed', result: await runner.run(job.job.prompt, { signal }) };
    } catch (error) {
      return { kind: 'failed', error, usage: { inputTokens: 0, outputTokens: 0 }, toolCalls: [] };
    }
  };
}

async function collect(results: AsyncIterable<BatchResult>): Promise<BatchResult[]> {
  const all: BatchResult[] = [];
  for await (const result of results) all.push(result);
  return all;
}

describe('the batch retry policy', () => {
  it('runs a job again, from a fresh runner, when the provider stays unavailable past the run’s own retries', async () => {
    const progress: JobProgress[] = [];
    const waits: number[] = [];
    // Each attempt: the first call and 5 inner retries fail; the third attempt's call succeeds.
    const failingAttempt = Array.from({ length: 6 }, unavailable);
    const [result] = await collect(
      runJobs(jobs('flaky'), {
        runAttempt: attemptsOver({ flaky: [...failingAttempt, ...failingAttempt, textReply('at last')] }),
        sleep: async (ms) => void waits.push(ms),
        onProgress: (event) => progress.push(event),
      }),
    );
    expect(result).toMatchObject({
      status: 'ok',
      answer: 'at last',
      attempts: 3,
      usage: { inputTokens: 10, outputTokens: 5 },
    });
    expect(waits).toEqual([2000, 4000]);
    expect(progress.filter((event) => event.type === 'job-retry').map((event) => event.attempt)).toEqual([
      2, 3,
    ]);
  });

  it('reports the job failed after the last attempt, saying the error could pass', async () => {
    const failingAttempt = Array.from({ length: 6 }, unavailable);
    const [result] = await collect(
      runJobs(jobs('down'), {
        runAttempt: attemptsOver({ down: [...failingAttempt, ...failingAttempt] }),
        retries: 1,
        sleep: async () => undefined,
      }),
    );
    expect(result).toMatchObject({
      status: 'failed',
      attempts: 2,
      error: { kind: 'ProviderError', message: 'overloaded (503)', retryable: true },
    });
  });

  it('does not retry what would fail the same way, and the batch goes on', async () => {
    const results = await collect(
      runJobs(jobs('refused', 'loops', 'fine'), {
        runAttempt: attemptsOver({
          refused: [badRequest()],
          loops: [
            [
              { type: 'tool-call', call: { type: 'tool-call', id: '1', name: 'x', input: {} } },
              { type: 'finish', reason: 'tool-calls' },
            ],
            [
              { type: 'tool-call', call: { type: 'tool-call', id: '2', name: 'x', input: {} } },
              { type: 'finish', reason: 'tool-calls' },
            ],
          ],
          fine: [textReply('ok')],
        }),
        concurrency: 1,
        sleep: () => Promise.reject(new Error('no job here should wait for a retry')),
      }),
    );
    expect(
      results.map((result) => [result.line, result.status, result.attempts, result.error?.kind]),
    ).toEqual([
      [1, 'failed', 1, 'ProviderError'],
      [2, 'failed', 1, 'MaxStepsError'],
      [3, 'ok', 1, undefined],
    ]);
    expect(results[1]?.toolCalls).toEqual([]);
  });

  it('classifies errors: retryable provider failures and server failures only', () => {
    expect(isRetryableJobError(unavailable().error)).toBe(true);
    expect(isRetryableJobError(new ServerError('memory', 'did not start'))).toBe(true);
    expect(isRetryableJobError(badRequest().error)).toBe(false);
    expect(isRetryableJobError(new MaxStepsError(3))).toBe(false);
    expect(isRetryableJobError(new Error('bug'))).toBe(false);
  });
});

describe('the batch scheduler', () => {
  it('never runs more jobs at once than the concurrency, and yields each result as it ends', async () => {
    let running = 0;
    let most = 0;
    const releases: Array<() => void> = [];
    const results = runJobs(jobs('1', '2', '3', '4', '5'), {
      concurrency: 2,
      runAttempt: async (job) => {
        running += 1;
        most = Math.max(most, running);
        await new Promise<void>((resolve) => releases.push(resolve));
        running -= 1;
        return {
          kind: 'failed',
          error: new Error(`job ${job.job.prompt}`),
          usage: { inputTokens: 1, outputTokens: 0 },
          toolCalls: [],
        };
      },
    });
    const seen: string[] = [];
    const iterator = results[Symbol.asyncIterator]();
    for (let index = 0; index < 5; index++) {
      await new Promise((resolve) => setImmediate(resolve));
      releases.shift()?.();
      const next = await iterator.next();
      seen.push((next.value as BatchResult).error?.message ?? '');
    }
    expect(await iterator.next()).toMatchObject({ done: true });
    expect(most).toBe(2);
    expect(seen).toEqual(['job 1', 'job 2', 'job 3', 'job 4', 'job 5']);
  });

  it('stops on the signal: jobs in flight yield nothing and no new job starts', async () => {
    const stop = new AbortController();
    const started: string[] = [];
    const results = await collect(
      runJobs(jobs('a', 'b', 'c', 'd'), {
        concurrency: 2,
        signal: stop.signal,
        runAttempt: async (job, _attempt, signal) => {
          started.push(job.job.prompt);
          if (job.job.prompt === 'a')
            return {
              kind: 'completed',
              result: await new Runner({ provider: new ScriptedProvider([textReply('A')]) }).run('a'),
            };
          // b waits until the batch is stopped, then ends as a cancelled run does.
          stop.abort();
          await new Promise((resolve) => setImmediate(resolve));
          return {
            kind: 'failed',
            error: signal.reason,
            usage: { inputTokens: 0, outputTokens: 0 },
            toolCalls: [],
          };
        },
      }),
    );
    expect(results.map((result) => result.answer)).toEqual(['A']);
    expect(started.includes('d')).toBe(false);
  });
});
