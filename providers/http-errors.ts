/**
 * The one place that decides which HTTP statuses and network failures are worth retrying, and how
 * long a vendor asked us to wait. Every provider maps its SDK's errors through these.
 */

/** Longest `Retry-After` we honour; a vendor asking for more gets this. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** 408 timeout, 409 conflict (lock), 429 rate limit, every 5xx, and Anthropic's 529 overloaded. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** Network error codes that are worth another try (a refused connection is not: nothing listens). */
const TRANSIENT_NETWORK_CODES = new Set([
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** The `code` of an error or of any error in its `cause` chain (fetch wraps the socket error). */
export function networkErrorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as Error & { code?: unknown }).code;
    if (typeof code === 'string' && /^(E[A-Z_]+|UND_ERR_[A-Z_]+)$/.test(code)) return code;
    current = current.cause;
  }
  return undefined;
}

/** True when the error is a network failure that may pass. */
export function isTransientNetworkError(error: unknown): boolean {
  const code = networkErrorCode(error);
  return code !== undefined && TRANSIENT_NETWORK_CODES.has(code);
}

/**
 * Reads `retry-after-ms` (OpenAI, Anthropic) or `Retry-After` (seconds or an HTTP date).
 * Returns milliseconds, capped at {@link MAX_RETRY_AFTER_MS}, or undefined when absent or unreadable.
 */
export function parseRetryAfter(
  headers: { get(name: string): string | null } | undefined,
  now: number = Date.now(),
): number | undefined {
  if (headers === undefined) return undefined;
  const milliseconds = Number(headers.get('retry-after-ms') ?? Number.NaN);
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return Math.min(milliseconds, MAX_RETRY_AFTER_MS);
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, MAX_RETRY_AFTER_MS);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.min(Math.max(0, date - now), MAX_RETRY_AFTER_MS);
}
