import { describe, expect, it } from 'vitest';
import { AbortedError, ProviderError } from '../../src/core/errors.js';
import { DEFAULT_RETRY_POLICY, retryDelayMs, withRetry, type Sleep } from '../../src/core/retry.js';
import { parseRetryAfter, isRetryableStatus } from '../../providers/http-errors.js';

const retryable = (retryAfterMs?: number) =>
  new ProviderError('p', 'busy', {
    status: 429,
    retryable: true,
    retryAfterMs,
  });

describe('retry policy', () => {
  it('backs off exponentially from 1 s by a factor of 2, capped at 30 s, with jitter in [half, full]', () => {
    const low = [1, 2, 3, 4, 5, 6, 7].map((retry) =>
      retryDelayMs(retry, retryable(), DEFAULT_RETRY_POLICY, () => 0),
    );
    const high = [1, 2, 3, 4, 5, 6, 7].map((retry) =>
      retryDelayMs(retry, retryable(), DEFAULT_RETRY_POLICY, () => 1),
    );
    expect(high).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
    expect(low).toEqual([500, 1000, 2000, 4000, 8000, 15000, 15000]);
  });

  it('never comes back sooner than Retry-After', () => {
    expect(retryDelayMs(1, retryable(20_000), DEFAULT_RETRY_POLICY, () => 0)).toBe(20_000);
    expect(retryDelayMs(5, retryable(100), DEFAULT_RETRY_POLICY, () => 1)).toBe(16_000);
  });

  it('classifies statuses and reads Retry-After in all its forms', () => {
    expect([408, 409, 429, 500, 503, 529].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 422].some(isRetryableStatus)).toBe(false);
    const headers = (entries: Record<string, string>) => new Headers(entries);
    expect(parseRetryAfter(headers({ 'retry-after': '7' }))).toBe(7000);
    expect(parseRetryAfter(headers({ 'retry-after-ms': '250', 'retry-after': '9' }))).toBe(250);
    expect(parseRetryAfter(headers({ 'retry-after': 'Thu, 01 Jan 1970 00:00:10 GMT' }), 4000)).toBe(6000);
    expect(parseRetryAfter(headers({ 'retry-after': '99999' }))).toBe(60_000);
    expect(parseRetryAfter(headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(parseRetryAfter(headers({}))).toBeUndefined();
  });

  it('retries five times with the policy delays on a fake clock, then throws the last error', async () => {
    const waits: number[] = [];
    const sleep: Sleep = async (ms) => {
      waits.push(ms);
    };
    let attempts = 0;
    const failing = async () => {
      attempts++;
      throw retryable();
    };
    await expect(withRetry(failing, { sleep, random: () => 1 })).rejects.toMatchObject({ status: 429 });
    expect(attempts).toBe(6);
    expect(waits).toEqual([1000, 2000, 4000, 8000, 16000]);
  });

  it('does not retry errors that are not retryable', async () => {
    let attempts = 0;
    const failing = async () => {
      attempts++;
      throw new ProviderError('p', 'bad request', { status: 400, retryable: false });
    };
    await expect(withRetry(failing, { sleep: async () => undefined })).rejects.toMatchObject({ status: 400 });
    expect(attempts).toBe(1);
  });

  it('stops waiting when aborted mid-wait, with AbortedError', async () => {
    const controller = new AbortController();
    const sleep: Sleep = (_ms, signal) =>
      new Promise((_resolve, reject) => {
        signal?.addEventListener('abort', () => reject(signal.reason as Error));
        controller.abort();
      });
    const failing = async () => {
      throw retryable();
    };
    await expect(withRetry(failing, { sleep, signal: controller.signal })).rejects.toBeInstanceOf(
      AbortedError,
    );
  });
});
