/**
 * The retry policy around model calls — the only retries in mcphost (vendor SDK retries are off,
 * and tool calls are never retried: they may have side effects).
 *
 * p-retry counts attempts, stops on non-retryable errors and honours the AbortSignal; the delay is
 * ours ({@link retryDelayMs}) so that `Retry-After` is honoured and tests can use a fake clock.
 */
import pRetry from 'p-retry';
import { AbortedError, isRetryable, type ProviderError } from './errors.js';

/** How model calls are retried. */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  readonly retries: number;
  /** Delay before the first retry, in ms. */
  readonly initialDelayMs: number;
  /** Each delay is this many times the previous one. */
  readonly factor: number;
  /** No backoff delay exceeds this (a longer `Retry-After` from the vendor still wins). */
  readonly maxDelayMs: number;
}

/** 1 s, 2 s, 4 s, 8 s, 16 s (each with jitter), then give up. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  retries: 5,
  initialDelayMs: 1_000,
  factor: 2,
  maxDelayMs: 30_000,
};

/** Waits `ms` milliseconds; rejects with the signal's reason when it aborts. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const realSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/**
 * The wait before retry number `retry` (1-based): exponential backoff, capped, with "equal jitter"
 * (half fixed, half random) so that many clients hitting one rate limit spread out. A vendor's
 * `Retry-After` is a floor: we never come back sooner than asked.
 */
export function retryDelayMs(
  retry: number,
  error: ProviderError,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
  random: () => number = Math.random,
): number {
  const exponential = policy.initialDelayMs * policy.factor ** (retry - 1);
  const capped = Math.min(exponential, policy.maxDelayMs);
  const jittered = Math.round(capped / 2 + (random() * capped) / 2);
  return Math.max(jittered, error.retryAfterMs ?? 0);
}

/** Told before each wait, so a UI can say "retrying in 4 s". */
export interface RetryNotice {
  /** 1 for the first retry. */
  readonly attempt: number;
  readonly delayMs: number;
  readonly error: ProviderError;
}

export interface RetryOptions {
  readonly policy?: RetryPolicy;
  readonly signal?: AbortSignal | undefined;
  readonly sleep?: Sleep;
  readonly random?: () => number;
  readonly onRetry?: (notice: RetryNotice) => void;
}

/**
 * Runs `attempt` until it succeeds, fails with a non-retryable error, or retries run out (then the
 * last error is thrown). An abort, even mid-wait, throws {@link AbortedError}.
 */
export async function withRetry<T>(attempt: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const { policy = DEFAULT_RETRY_POLICY, signal, sleep = realSleep, random = Math.random } = options;
  try {
    return await pRetry(attempt, {
      retries: policy.retries,
      // p-retry's own timer is disabled: the wait happens in shouldRetry, with our delay and clock.
      minTimeout: 0,
      maxTimeout: 0,
      signal,
      shouldRetry: async ({ error, retriesConsumed }) => {
        if (!isRetryable(error)) return false;
        const delayMs = retryDelayMs(retriesConsumed + 1, error, policy, random);
        options.onRetry?.({ attempt: retriesConsumed + 1, delayMs, error });
        await sleep(delayMs, signal);
        return true;
      },
    });
  } catch (error) {
    if (signal?.aborted === true && !(error instanceof AbortedError)) {
      throw new AbortedError('cancelled', { cause: error });
    }
    throw error;
  }
}

/** The retry options of a Runner's model calls: its own policy, sleep and randomness, or the defaults. */
export function retryOptionsOf(given: {
  readonly retry?: RetryPolicy;
  readonly sleep?: Sleep;
  readonly random?: () => number;
}): Omit<RetryOptions, 'signal' | 'onRetry'> {
  return {
    policy: given.retry ?? DEFAULT_RETRY_POLICY,
    sleep: given.sleep ?? realSleep,
    random: given.random ?? Math.random,
  };
}
